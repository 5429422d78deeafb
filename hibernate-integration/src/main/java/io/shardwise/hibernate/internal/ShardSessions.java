package io.shardwise.hibernate.internal;

import io.shardwise.hibernate.ShardContext;
import io.shardwise.hibernate.metrics.SessionKind;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import java.util.function.Supplier;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.StatelessSession;

/** The one way Shardwise opens a Hibernate session on a shard. */
public final class ShardSessions {
  /**
   * The tenant identifier of a session opened without a shard (no shard can be named so): it reads
   * {@code @ReferenceTable} entities from any healthy shard and refuses sharded ones.
   */
  public static final String NO_SHARD = "(no shard)";

  /**
   * The shard of the session {@link #open} is opening on this thread, for the tenant resolver: one
   * one-element array per thread, written in place, so that opening a session neither allocates a
   * thread-local entry nor removes one (a JDK type, so a pooled thread pins no application class loader).
   */
  private static final ThreadLocal<String[]> OPENING = ThreadLocal.withInitial(() -> new String[1]);

  /** The session whose transaction Shardwise runs work in on this thread, for scatter queries to join. */
  private static final ThreadLocal<Session> IN_TRANSACTION = new ThreadLocal<>();

  private ShardSessions() {}

  /** Runs {@code work} with {@code session} as this thread's session in a transaction (see {@link #inTransaction()}). */
  public static <R> R runInTransactionOf(Session session, Supplier<R> work) {
    Session outer = IN_TRANSACTION.get();
    IN_TRANSACTION.set(session);
    try {
      return work.get();
    } finally {
      if (outer == null) {
        IN_TRANSACTION.remove();
      } else {
        IN_TRANSACTION.set(outer);
      }
    }
  }

  /**
   * The session of the transaction that Shardwise's unit of work runs on this thread (the
   * innermost one), while that transaction is active; else null.
   */
  public static Session inTransaction() {
    return ifTransactionActive(IN_TRANSACTION.get());
  }

  /** {@code session} if it is open and its transaction active; else null (also for null). */
  public static Session ifTransactionActive(Session session) {
    return session != null && session.isOpen() && session.getTransaction().isActive() ? session : null;
  }

  /**
   * A new session bound to {@code shardId}. Hibernate asks the tenant resolver when the session
   * builder is created, before {@code tenantIdentifier(...)} applies: the resolver is answered with
   * this shard for that moment ({@link #opening()}) rather than let it refuse a session that does
   * name its shard, or count it as a session of the thread's {@link ShardContext}.
   */
  public static Session open(SessionFactory sessionFactory, String shardId, boolean readOnly) {
    if (shardId == null) {
      throw new IllegalArgumentException("A shard session needs a shard id, was null; to route by key use"
          + " ShardedSessions.forKey(key)");
    }
    String[] opening = OPENING.get();
    String outer = opening[0];
    opening[0] = shardId;
    try {
      return sessionFactory.withOptions().tenantIdentifier((Object) shardId).readOnly(readOnly).openSession();
    } finally {
      opening[0] = outer;
    }
  }

  /** The same, counted as a session of {@code kind} on {@code shardId}. */
  public static Session open(SessionFactory sessionFactory, String shardId, boolean readOnly,
      ShardwiseMetrics metrics, SessionKind kind) {
    Session session = open(sessionFactory, shardId, readOnly);
    metrics.sessionOpened(kind, shardId);
    return session;
  }

  /** The shard of a session {@link #open} is opening on this thread, else null. */
  public static String opening() {
    return OPENING.get()[0];
  }

  /**
   * A stateless session on {@code parent}'s connection, inside its transaction, as hibernate-processor's
   * Jakarta Data repositories take one. It is handed the parent's JDBC connection rather than built with
   * {@code statelessWithOptions().connection()}: Hibernate 7.4 refuses that child whenever the session
   * factory is multi-tenant (it compares the tenants the wrong way round).
   */
  public static StatelessSession openStatelessSharing(Session parent) {
    java.sql.Connection connection = parent.doReturningWork(c -> c);
    String[] opening = OPENING.get();
    String outer = opening[0];
    opening[0] = parent.getTenantIdentifier();
    try {
      return parent.getSessionFactory().withStatelessOptions().connection(connection)
          .tenantIdentifier((Object) parent.getTenantIdentifier()).readOnly(parent.isDefaultReadOnly())
          .openStatelessSession();
    } finally {
      opening[0] = outer;
    }
  }
}
