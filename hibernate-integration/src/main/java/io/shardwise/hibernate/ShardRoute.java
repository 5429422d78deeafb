package io.shardwise.hibernate;

import io.shardwise.hibernate.internal.ShardSessions;
import io.shardwise.hibernate.readwrite.ConsistencyScope;
import io.shardwise.hibernate.readwrite.internal.LsnText;
import io.shardwise.hibernate.readwrite.internal.ReadYourWritesPins;
import io.shardwise.hibernate.readwrite.internal.ReadYourWritesTracking;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.function.Consumer;
import java.util.function.Function;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.Transaction;

/**
 * Sessions on one shard, obtained from {@link ShardedSessions#forKey} or
 * {@link ShardedSessions#forShard}. Immutable: {@link #readOnly()} and {@link #within} return new
 * routes.
 *
 * <ul>
 *   <li>Read-write sessions (the default) run on the shard's primary; so does every row lock.</li>
 *   <li>{@link #readOnly()} sessions are served by a healthy replica, or the primary when none
 *       qualifies; they refuse row locks before any SQL is sent.</li>
 *   <li>{@link #within(ConsistencyScope)}: a write transaction that changes a {@code @ReadYourWrites}
 *       entity pins the scope after commit; the scope's read-only sessions honour the pin.</li>
 * </ul>
 */
public final class ShardRoute {
  private final SessionFactory sessionFactory;
  private final ReadYourWritesPins pins;
  private final String shardId;
  private final boolean readOnly;
  private final ConsistencyScope scope;

  ShardRoute(SessionFactory sessionFactory, ReadYourWritesPins pins, String shardId, boolean readOnly,
      ConsistencyScope scope) {
    this.sessionFactory = sessionFactory;
    this.pins = pins;
    this.shardId = shardId;
    this.readOnly = readOnly;
    this.scope = scope;
  }

  public String shardId() {
    return shardId;
  }

  public boolean isReadOnly() {
    return readOnly;
  }

  /** The same shard, read-only: served by replicas where they are healthy and caught up. */
  public ShardRoute readOnly() {
    return new ShardRoute(sessionFactory, pins, shardId, true, scope);
  }

  /** The same shard, reading and writing on behalf of a consistency scope (read-your-writes). */
  public ShardRoute within(ConsistencyScope scope) {
    if (scope == null) {
      throw new IllegalArgumentException("within(scope) needs a scope: shards.consistency().scope(id)");
    }
    return new ShardRoute(sessionFactory, pins, shardId, readOnly, scope);
  }

  /**
   * A new session on this shard; the caller closes it. Read-your-writes applies to the callback
   * methods only, which know when the work starts and ends.
   */
  public Session openSession() {
    return ShardSessions.open(sessionFactory, shardId, readOnly);
  }

  public void inSession(Consumer<Session> work) {
    fromSession(session -> {
      work.accept(session);
      return null;
    });
  }

  public <R> R fromSession(Function<Session, R> work) {
    requireForReads();
    try (Session session = openSession()) {
      return work.apply(session);
    } finally {
      ReadYourWritesTracking.requireForReads(null);
    }
  }

  /** Runs {@code work} in a transaction on this shard: committed if it returns, rolled back if it throws. */
  public void inTransaction(Consumer<Session> work) {
    fromTransaction(session -> {
      work.accept(session);
      return null;
    });
  }

  public <R> R fromTransaction(Function<Session, R> work) {
    requireForReads();
    ReadYourWritesTracking.Writes writes = scope != null && !readOnly ? ReadYourWritesTracking.startTrackingWrites() : null;
    try (Session session = openSession()) {
      Transaction tx = session.beginTransaction();
      R result;
      try {
        result = work.apply(session);
        tx.commit();
      } catch (RuntimeException | Error e) {
        if (tx.isActive()) {
          try {
            tx.rollback();
          } catch (RuntimeException rollbackFailure) {
            e.addSuppressed(rollbackFailure);
          }
        }
        throw e;
      }
      if (writes != null && writes.any()) {
        long lsn = writes.lsn() ? session.doReturningWork(ShardRoute::currentWalLsn) : 0;
        pins.pinAfterCommit(scope.id(), shardId, writes, lsn);
      }
      return result;
    } finally {
      ReadYourWritesTracking.stopTrackingWrites();
      ReadYourWritesTracking.requireForReads(null);
    }
  }

  /** The primary's WAL position once the commit is done: at or after the commit record. */
  private static long currentWalLsn(java.sql.Connection c) throws java.sql.SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_current_wal_lsn()::text")) {
      rs.next();
      return LsnText.parse(rs.getString(1));
    }
  }

  private void requireForReads() {
    if (readOnly && scope != null) {
      ReadYourWritesTracking.requireForReads(pins.requirement(scope.id(), shardId));
    }
  }

  @Override
  public String toString() {
    return "ShardRoute[" + shardId + (readOnly ? ", read-only" : "") + (scope != null ? ", scope " + scope.id() : "") + "]";
  }
}
