package io.shardwise.hibernate.spi;

import io.shardwise.hibernate.NoShardSelectedException;
import io.shardwise.hibernate.ShardContext;
import org.hibernate.context.spi.CurrentTenantIdentifierResolver;

/**
 * Tells Hibernate the shard of a session opened without one: the {@link ShardContext} of the
 * current thread. Without a context it refuses, so that no session silently lands on a default
 * shard.
 */
public final class ShardContextResolver implements CurrentTenantIdentifierResolver<String> {

  @Override
  public String resolveCurrentTenantIdentifier() {
    String shard = ShardContext.current();
    if (shard == null) {
      throw new NoShardSelectedException("No shard selected for this session. Open it through Shardwise "
          + "(shards.forKey(key).inTransaction(...)) or wrap the unit of work in "
          + "try (var scope = shards.contextForKey(key)) { ... } so that openSession()/createEntityManager() know"
          + " where to go.");
    }
    return shard;
  }

  @Override
  public boolean validateExistingCurrentSessions() {
    return true;
  }
}
