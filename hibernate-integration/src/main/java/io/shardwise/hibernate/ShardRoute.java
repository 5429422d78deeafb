package io.shardwise.hibernate;

import java.util.function.Consumer;
import java.util.function.Function;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.Transaction;

/** Sessions on one shard. Obtained from {@link ShardedSessions#forKey} or {@link ShardedSessions#forShard}. */
public final class ShardRoute {
  private final SessionFactory sessionFactory;
  private final String shardId;

  ShardRoute(SessionFactory sessionFactory, String shardId) {
    this.sessionFactory = sessionFactory;
    this.shardId = shardId;
  }

  public String shardId() {
    return shardId;
  }

  /** A new read-write session on this shard's primary; the caller closes it. */
  public Session openSession() {
    // Hibernate asks the tenant resolver when the session builder is created, before
    // tenantIdentifier(...) applies: answer it with this shard rather than let it refuse.
    try (ShardContext.Scope ignored = ShardContext.use(shardId)) {
      return sessionFactory.withOptions().tenantIdentifier((Object) shardId).openSession();
    }
  }

  public void inSession(Consumer<Session> work) {
    try (Session session = openSession()) {
      work.accept(session);
    }
  }

  public <R> R fromSession(Function<Session, R> work) {
    try (Session session = openSession()) {
      return work.apply(session);
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
    try (Session session = openSession()) {
      Transaction tx = session.beginTransaction();
      try {
        R result = work.apply(session);
        tx.commit();
        return result;
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
    }
  }

  @Override
  public String toString() {
    return "ShardRoute[" + shardId + "]";
  }
}
