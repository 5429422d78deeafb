package io.shardwise.hibernate.internal;

import io.shardwise.hibernate.ShardContext;
import io.shardwise.hibernate.metrics.SessionKind;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import org.hibernate.Session;
import org.hibernate.SessionFactory;

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

  private ShardSessions() {}

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
}
