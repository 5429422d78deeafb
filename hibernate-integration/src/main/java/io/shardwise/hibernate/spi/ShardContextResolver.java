package io.shardwise.hibernate.spi;

import io.shardwise.hibernate.NoShardSelectedException;
import io.shardwise.hibernate.ShardContext;
import io.shardwise.hibernate.internal.ShardSessions;
import org.hibernate.context.spi.CurrentTenantIdentifierResolver;

/**
 * Tells Hibernate the shard of a session opened without one: the {@link ShardContext} of the
 * current thread. Without a context the session is still opened, as a session of no shard
 * ({@link #NO_SHARD}): it reads {@code @ReferenceTable} entities from any healthy shard, and the
 * first statement that touches a sharded entity fails with {@link NoShardSelectedException}
 * naming the entity, before any SQL is sent. So frameworks that open an {@code EntityManager} at
 * startup (Spring Data's repository bootstrap, {@code @DataJpaTest}) work, and nothing sharded
 * silently lands on a default shard.
 */
public final class ShardContextResolver implements CurrentTenantIdentifierResolver<String> {

  /** The tenant identifier of a session opened without a shard. No shard can be named so. */
  public static final String NO_SHARD = ShardSessions.NO_SHARD;

  @Override
  public String resolveCurrentTenantIdentifier() {
    String shard = ShardContext.current();
    return shard == null ? NO_SHARD : shard;
  }

  @Override
  public boolean validateExistingCurrentSessions() {
    return true;
  }
}
