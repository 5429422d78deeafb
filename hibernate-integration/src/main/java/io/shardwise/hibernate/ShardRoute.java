package io.shardwise.hibernate;

import io.shardwise.hibernate.internal.jdbc.ShardConnection;
import io.shardwise.hibernate.internal.ShardFailures;
import io.shardwise.hibernate.internal.ShardSessions;
import io.shardwise.hibernate.metrics.SessionKind;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import io.shardwise.hibernate.metrics.ShardwiseObservations;
import io.shardwise.hibernate.readwrite.ConsistencyScope;
import io.shardwise.hibernate.readwrite.internal.HedgedReads;
import io.shardwise.hibernate.readwrite.internal.LsnText;
import io.shardwise.hibernate.readwrite.internal.ReadRetry;
import io.shardwise.hibernate.readwrite.internal.ReadYourWritesPins;
import io.shardwise.hibernate.readwrite.internal.ReadYourWritesTracking;
import io.shardwise.hibernate.resharding.BucketMovedException;
import io.shardwise.hibernate.routing.internal.Router;
import io.shardwise.hibernate.spi.ShardwiseConnectionProvider;
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
 *   <li>While an online move has switched the reads of the key's bucket to its target,
 *       {@link #readOnly()} sessions go to the target; read-write sessions stay on the owner.</li>
 *   <li>A write that a shard refuses because its bucket has moved (this router's map was stale)
 *       refreshes the map and fails with {@link BucketMovedException}: retry the unit of work.</li>
 *   <li>The callback methods throw only Shardwise's exceptions for what happens on the shard: a
 *       unit of work the shard answered with an error (a lock timeout, a deadlock, a serialization
 *       failure, a constraint...) fails with {@link TransactionAbortedException}, Hibernate's
 *       exception its cause, {@link TransactionAbortedException#isRetryable()} saying whether the
 *       same work may succeed again; a lost or silent server with {@link ShardUnavailableException};
 *       a full pool with {@link ShardSaturatedException}. An exception of the work's own passes
 *       unchanged. ({@link #openSession()} is the application's own session: nothing is translated.)</li>
 * </ul>
 */
public final class ShardRoute {
  private final SessionFactory sessionFactory;
  private final ReadYourWritesPins pins;
  private final Router router;
  private final String writeShardId;
  private final String readShardId;
  private final boolean readOnly;
  private final ConsistencyScope scope;
  private final ShardwiseMetrics metrics;
  /** Null when tracing is off. */
  private final ShardwiseObservations observations;
  private final SessionKind kind;
  /** The unit of work's deadline in ms, 0 for none (the pool's per-call deadlines still apply). */
  private final long deadlineMs;
  private final HedgedReads hedges;
  /** Whether read-only units of work on this route are hedged ({@link #hedged(boolean)}). */
  private final boolean hedged;

  ShardRoute(SessionFactory sessionFactory, ReadYourWritesPins pins, Router router, String writeShardId,
      String readShardId, boolean readOnly, ConsistencyScope scope, ShardwiseMetrics metrics,
      ShardwiseObservations observations, SessionKind kind, HedgedReads hedges) {
    this(sessionFactory, pins, router, writeShardId, readShardId, readOnly, scope, metrics, observations, kind, 0,
        hedges, hedges.enabledByDefault());
  }

  private ShardRoute(SessionFactory sessionFactory, ReadYourWritesPins pins, Router router, String writeShardId,
      String readShardId, boolean readOnly, ConsistencyScope scope, ShardwiseMetrics metrics,
      ShardwiseObservations observations, SessionKind kind, long deadlineMs, HedgedReads hedges, boolean hedged) {
    this.hedges = hedges;
    this.hedged = hedged;
    this.metrics = metrics;
    this.observations = observations;
    this.kind = kind;
    this.deadlineMs = deadlineMs;
    this.sessionFactory = sessionFactory;
    this.pins = pins;
    this.router = router;
    this.writeShardId = writeShardId;
    this.readShardId = readShardId;
    this.readOnly = readOnly;
    this.scope = scope;
  }

  /** The shard this route's sessions open on. */
  public String shardId() {
    return readOnly ? readShardId : writeShardId;
  }

  public boolean isReadOnly() {
    return readOnly;
  }

  /** The same shard, read-only: served by replicas where they are healthy and caught up. */
  public ShardRoute readOnly() {
    return new ShardRoute(sessionFactory, pins, router, writeShardId, readShardId, true, scope, metrics, observations,
        kind, deadlineMs, hedges, hedged);
  }

  /**
   * The same read-only route, with its units of work hedged or not, whatever
   * {@code shardwise.read.hedge.enabled} says for the persistence unit. A hedged unit
   * ({@link #fromSession}, {@link #fromTransaction} and their {@code in...} forms) that is still
   * running on a replica after the hedge delay (a percentile of that replica's recent units times a
   * multiplier, within a floor and a ceiling: {@code shardwise.read.hedge.*}) runs once more, on
   * another thread, on another replica that satisfies the scope's read-your-writes pin, else on the
   * primary; the first to return is the answer, and the other's connection is closed and its
   * statement cancelled. The callback may therefore run twice, at the same time on two threads: it
   * cannot write to the shard (a read-only session refuses writes and row locks), but anything else
   * it does, it may do twice. A unit served by the primary is never hedged.
   *
   * @throws IllegalStateException on a read-write route: only read-only units are hedged, so call
   *     {@link #readOnly()} first
   */
  public ShardRoute hedged(boolean hedged) {
    if (!readOnly) {
      throw new IllegalStateException("hedged(" + hedged + ") on a read-write route of shard '" + writeShardId
          + "': only read-only units of work are hedged (a write must run once, on the primary). Call readOnly()"
          + " first: shards.forKey(key).readOnly().hedged(true).fromSession(...)");
    }
    return new ShardRoute(sessionFactory, pins, router, writeShardId, readShardId, true, scope, metrics, observations,
        kind, deadlineMs, hedges, hedged);
  }

  /** Whether this route's read-only units of work are hedged ({@link #hedged(boolean)}); false on a read-write route. */
  public boolean isHedged() {
    return readOnly && hedged;
  }

  /**
   * The same shard, with an overall deadline for each unit of work run through the callback methods
   * ({@link #inTransaction}, {@link #fromTransaction}, {@link #inSession}, {@link #fromSession}),
   * counted from when its session has its connection. Every statement and the commit must start
   * before it, no read from the server waits past it (the socket timeout follows the time left),
   * and a transaction's statements run under a {@code statement_timeout} of the whole deadline. A
   * unit of work past its deadline fails with {@link ShardUnavailableException} ("timed out after
   * N ms"), and nothing of it since its last commit is kept.
   *
   * <p>Longer than the pool's own deadlines (shardwise.primary.statement_timeout_ms and
   * socket_timeout_ms), it lets a long batch run; shorter, it tightens a latency-critical call.
   * Getting the connection is bounded by the pool's connection timeout, not by this deadline.
   */
  public ShardRoute withDeadline(java.time.Duration deadline) {
    if (deadline == null || deadline.isNegative() || deadline.isZero() || deadline.toMillis() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("withDeadline needs a positive duration of at most " + Integer.MAX_VALUE
          + " ms, not " + deadline);
    }
    return new ShardRoute(sessionFactory, pins, router, writeShardId, readShardId, readOnly, scope, metrics,
        observations, kind, deadline.toMillis(), hedges, hedged);
  }

  /** The unit-of-work deadline of {@link #withDeadline}, or null when none is set. */
  public java.time.Duration deadline() {
    return deadlineMs == 0 ? null : java.time.Duration.ofMillis(deadlineMs);
  }

  /** The same shard, reading and writing on behalf of a consistency scope (read-your-writes). */
  public ShardRoute within(ConsistencyScope scope) {
    if (scope == null) {
      throw new IllegalArgumentException("within(scope) needs a scope: shards.consistency().scope(id)");
    }
    return new ShardRoute(sessionFactory, pins, router, writeShardId, readShardId, readOnly, scope, metrics,
        observations, kind, deadlineMs, hedges, hedged);
  }

  /**
   * A new session on this shard; the caller closes it. Read-your-writes applies to the callback
   * methods only, which know when the work starts and ends.
   */
  public Session openSession() {
    return ShardSessions.open(sessionFactory, shardId(), readOnly, metrics, kind);
  }

  public void inSession(Consumer<Session> work) {
    fromSession(session -> {
      work.accept(session);
      return null;
    });
  }

  public <R> R fromSession(Function<Session, R> work) {
    return readOnly ? readOnlyUnit(ms -> sessionOnce(work, false, ms)) : sessionOnce(work, false, deadlineMs);
  }

  /** A read-only unit of work: hedged when this route says so, retried once off a replica that failed under it. */
  private <R> R readOnlyUnit(java.util.function.LongFunction<R> unit) {
    if (!hedged) {
      return retriedOffAFailedReplica(unit);
    }
    long started = System.nanoTime();
    return hedges.run(unit, deadlineMs, failure -> {
      if (failure instanceof ShardUnavailableException unavailable) {
        return retriedOffAFailedReplica(unit, unavailable, started);
      }
      throw failure;
    });
  }

  /**
   * One attempt of {@link #fromSession}: a new session for {@code work}, closed when it returns or
   * throws — or, {@code leftOpen}, only when it throws (the result holds it, and its holder closes it).
   */
  private <R> R sessionOnce(Function<Session, R> work, boolean leftOpen, long deadlineMs) {
    String shard = requireForReads();
    ShardwiseObservations.Observed observed = observations == null ? null : observations.session(kind, shard, readOnly);
    Session session = ShardSessions.open(sessionFactory, shard, readOnly, metrics, kind);
    boolean handedOver = false;
    try {
      if (deadlineMs != 0) {
        session.doWork(c -> ShardConnection.startDeadline(c, deadlineMs));
      }
      R result = work.apply(session);
      handedOver = leftOpen;
      return result;
    } catch (RuntimeException e) {
      closeAfter(session, e);
      RuntimeException thrown = translated(e, shard);
      if (observed != null) {
        observed.error(thrown);
      }
      throw thrown;
    } catch (Error e) {
      closeAfter(session, e);
      throw e;
    } finally {
      if (!handedOver && session.isOpen()) {
        session.close();
      }
      if (setsReadRequirement()) {
        ReadYourWritesTracking.requireForReads(null);
      }
      if (observed != null) {
        observed.stop();
      }
    }
  }

  private static void closeAfter(Session session, Throwable failure) {
    try {
      session.close();
    } catch (RuntimeException closeFailure) {
      failure.addSuppressed(closeFailure);
    }
  }

  /**
   * Runs {@code work} in a new session on this shard, as {@link #fromSession} does (a read-only
   * route retries once off a replica that failed under it), except that the session stays open when
   * {@code work} returns: the result holds it, and its holder closes it. Closed here when
   * {@code work} throws. For a route without a consistency scope or deadline (a scatter part).
   */
  <R> R fromSessionLeftOpen(Function<Session, R> work) {
    if (scope != null || deadlineMs != 0) {
      throw new IllegalStateException("fromSessionLeftOpen is for scatter parts, which have neither a consistency"
          + " scope nor a unit-of-work deadline; this route has " + (scope != null ? "a scope" : "a deadline"));
    }
    return readOnly ? retriedOffAFailedReplica(ms -> sessionOnce(work, true, ms))
        : sessionOnce(work, true, deadlineMs);
  }

  /** Work on one JDBC connection of a shard. */
  @FunctionalInterface
  interface ConnectionWork<R> {
    R apply(java.sql.Connection connection) throws java.sql.SQLException;
  }

  /**
   * Runs {@code work} on the connection a read-only session on this shard would get from
   * {@code provider} (a healthy replica, else the primary; the breakers, lag policy, schema gate and
   * checkout timeout all apply), with no Hibernate session around it, and hands the connection back
   * when {@code work} returns or throws. Retried once off a replica that failed under it and hedged
   * as {@link #fromSession} is; a failure leaves as the same exception a session's unit of work
   * would throw (the driver's through Hibernate's {@code SqlExceptionHelper}, then
   * {@link ShardFailures}). For a read-only route without a consistency scope or deadline (a scatter
   * part that returns scalars): its work sends only the statements Shardwise built, which read.
   */
  <R> R fromReadOnlyConnection(ShardwiseConnectionProvider provider, ConnectionWork<R> work) {
    if (!readOnly || scope != null || deadlineMs != 0) {
      throw new IllegalStateException("fromReadOnlyConnection is for scatter parts: a read-only route without a"
          + " consistency scope or a unit-of-work deadline; this is " + this);
    }
    return readOnlyUnit(ms -> connectionOnce(provider, work));
  }

  /** One attempt of {@link #fromReadOnlyConnection}. */
  private <R> R connectionOnce(ShardwiseConnectionProvider provider, ConnectionWork<R> work) {
    String shard = readShardId;
    ShardwiseObservations.Observed observed = observations == null ? null : observations.session(kind, shard, true);
    try {
      metrics.sessionOpened(kind, shard); // counted as the session it stands in for would be
      java.sql.Connection connection;
      try {
        connection = provider.getReadOnlyConnection(shard);
      } catch (RuntimeException e) {
        throw translated(e, shard);
      }
      R result;
      try {
        result = work.apply(connection);
      } catch (java.sql.SQLException e) {
        RuntimeException thrown = translated(converted(e, "Error executing work"), shard);
        releaseAfter(provider, shard, connection, thrown);
        throw thrown;
      } catch (RuntimeException e) {
        RuntimeException thrown = translated(e, shard);
        releaseAfter(provider, shard, connection, thrown);
        throw thrown;
      } catch (Error e) {
        releaseAfter(provider, shard, connection, e);
        throw e;
      }
      try {
        provider.releaseReadOnlyConnection(shard, connection);
      } catch (java.sql.SQLException e) {
        throw translated(converted(e, "Unable to release JDBC Connection"), shard);
      }
      return result;
    } catch (RuntimeException | Error e) {
      if (observed != null) {
        observed.error(e);
      }
      throw e;
    } finally {
      if (observed != null) {
        observed.stop();
      }
    }
  }

  /** The driver's exception as Hibernate's own session would have thrown it (a {@code JDBCException} subtype). */
  private RuntimeException converted(java.sql.SQLException e, String message) {
    return sessionFactory.unwrap(org.hibernate.engine.spi.SessionFactoryImplementor.class).getJdbcServices()
        .getSqlExceptionHelper().convert(e, message);
  }

  private static void releaseAfter(ShardwiseConnectionProvider provider, String shard, java.sql.Connection connection,
      Throwable failure) {
    try {
      provider.releaseReadOnlyConnection(shard, connection);
    } catch (java.sql.SQLException | RuntimeException releaseFailure) {
      failure.addSuppressed(releaseFailure);
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
    return readOnly ? readOnlyUnit(ms -> transactionOnce(work, ms)) : transactionOnce(work, deadlineMs);
  }

  /**
   * Runs a read-only unit of work; when a replica it was reading from went silent or was lost under
   * it (not a refusal by an open breaker, which sends reads elsewhere before anything is sent), runs
   * it once more in a new session that avoids that replica: on another replica or the primary, under
   * the same read-your-writes requirement. A unit with its own deadline runs again with the time it
   * has left, and not at all once that is spent. The callback may therefore run twice; it wrote
   * nothing to the shard the first time.
   *
   * @param unit one attempt, given its deadline in milliseconds (0 for none)
   */
  private <R> R retriedOffAFailedReplica(java.util.function.LongFunction<R> unit) {
    long started = System.nanoTime();
    try {
      return unit.apply(deadlineMs);
    } catch (ShardUnavailableException failure) {
      return retriedOffAFailedReplica(unit, failure, started);
    }
  }

  /** The retry of {@link #retriedOffAFailedReplica(java.util.function.LongFunction)} after {@code failure}. */
  private <R> R retriedOffAFailedReplica(java.util.function.LongFunction<R> unit, ShardUnavailableException failure,
      long started) {
    String node = failure.node();
    long leftMs = deadlineMs - java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    if ((deadlineMs != 0 && leftMs <= 0) || failure.breakerState() != null || node == null
        || !node.startsWith("replica ")) {
      throw failure;
    }
    ReadRetry.avoid(node);
    try {
      return unit.apply(deadlineMs == 0 ? 0 : leftMs);
    } catch (RuntimeException again) {
      again.addSuppressed(failure);
      throw again;
    } finally {
      ReadRetry.done();
    }
  }

  private <R> R transactionOnce(Function<Session, R> work, long deadlineMs) {
    String shard = requireForReads();
    ReadYourWritesTracking.Writes writes = scope != null && !readOnly ? ReadYourWritesTracking.startTrackingWrites() : null;
    ShardwiseObservations.Observed observed = observations == null ? null : observations.session(kind, shard, readOnly);
    try (Session session = ShardSessions.open(sessionFactory, shard, readOnly, metrics, kind)) {
      Transaction tx = session.beginTransaction();
      R result;
      try {
        if (deadlineMs != 0) {
          session.doWork(c -> {
            ShardConnection.startDeadline(c, deadlineMs);
            try (Statement s = c.createStatement()) {
              s.execute("SET LOCAL statement_timeout = " + deadlineMs);
            }
          });
        }
        result = ShardSessions.runInTransactionOf(session, () -> work.apply(session));
        tx.commit();
      } catch (RuntimeException | Error e) {
        if (tx.isActive()) {
          try {
            tx.rollback();
          } catch (RuntimeException rollbackFailure) {
            e.addSuppressed(rollbackFailure);
          }
        }
        if (e instanceof RuntimeException re) {
          throw translated(re, shard);
        }
        throw (Error) e;
      }
      if (writes != null && writes.any()) {
        long lsn = writes.lsn() ? session.doReturningWork(ShardRoute::currentWalLsn) : 0;
        pins.pinAfterCommit(scope.id(), writeShardId, writes, lsn);
      }
      return result;
    } catch (RuntimeException | Error e) {
      if (observed != null) {
        observed.error(e);
      }
      throw e;
    } finally {
      if (writes != null) {
        ReadYourWritesTracking.stopTrackingWrites();
      }
      if (setsReadRequirement()) {
        ReadYourWritesTracking.requireForReads(null);
      }
      if (observed != null) {
        observed.stop();
      }
    }
  }

  /** The primary's WAL position once the commit is done: at or after the commit record. */
  private static long currentWalLsn(java.sql.Connection c) throws java.sql.SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_current_wal_lsn()::text")) {
      rs.next();
      return LsnText.parse(rs.getString(1));
    }
  }

  /**
   * The shard the session opens on, with the scope's read-your-writes requirement set for it. A
   * scope that wrote the key's bucket on its owner while the bucket's reads are switched to a move's
   * target reads from the owner (whose replicas honour the pin): the target may not have the write yet.
   */
  private String requireForReads() {
    if (!setsReadRequirement()) {
      return shardId();
    }
    String shard = readShardId;
    io.shardwise.hibernate.readwrite.Pin ownerPin = readShardId.equals(writeShardId) ? null
        : pins.requirement(scope.id(), writeShardId);
    if (ownerPin != null) {
      shard = writeShardId;
    }
    ReadYourWritesTracking.requireForReads(ownerPin != null ? ownerPin : pins.requirement(scope.id(), shard));
    return shard;
  }

  /** Whether {@link #requireForReads()} sets this thread's read requirement (and the unit of work must clear it). */
  private boolean setsReadRequirement() {
    return readOnly && scope != null;
  }

  /** What the unit of work on {@code shard} throws for {@code e}: see {@link ShardFailures}. */
  private RuntimeException translated(RuntimeException e, String shard) {
    return ShardFailures.ofUnitOfWork(e, shard, router::refresh);
  }

  @Override
  public String toString() {
    return "ShardRoute[" + shardId() + (readOnly ? ", read-only" : "") + (scope != null ? ", scope " + scope.id() : "") + "]";
  }
}
