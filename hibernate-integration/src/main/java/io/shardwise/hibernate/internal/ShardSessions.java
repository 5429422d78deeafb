package io.shardwise.hibernate.internal;

import io.shardwise.hibernate.ShardContext;
import org.hibernate.Session;
import org.hibernate.SessionFactory;

/** The one way Shardwise opens a Hibernate session on a shard. */
public final class ShardSessions {
  /**
   * The tenant identifier of a session opened without a shard (no shard can be named so): it reads
   * {@code @ReferenceTable} entities from any healthy shard and refuses sharded ones.
   */
  public static final String NO_SHARD = "(no shard)";

  private ShardSessions() {}

  /**
   * A new session bound to {@code shardId}. Hibernate asks the tenant resolver when the session
   * builder is created, before {@code tenantIdentifier(...)} applies: the resolver is answered with
   * this shard for that moment rather than let it refuse a session that does name its shard.
   */
  public static Session open(SessionFactory sessionFactory, String shardId, boolean readOnly) {
    try (ShardContext.Scope ignored = ShardContext.use(shardId)) {
      return sessionFactory.withOptions().tenantIdentifier((Object) shardId).readOnly(readOnly).openSession();
    }
  }
}
