package io.shardwise.hibernate.spi;

import io.shardwise.hibernate.NoShardSelectedException;
import io.shardwise.hibernate.ShardContext;
import io.shardwise.hibernate.internal.ShardSessions;
import io.shardwise.hibernate.metrics.SessionKind;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import org.hibernate.context.spi.CurrentTenantIdentifierResolver;

/**
 * Tells Hibernate the shard of a session opened without one: the {@link ShardContext} of the
 * current thread. Without a context the session is still opened, as a session of no shard
 * ({@link #NO_SHARD}): it reads {@code @ReferenceTable} entities from any healthy shard and binds to
 * the shard of the first key it uses (a {@code find} by key, a query that pins the key, a
 * {@code persist}); a statement on a sharded entity that names no key before that fails with
 * {@link NoShardSelectedException} naming the entity, before any SQL is sent. So frameworks that
 * open an {@code EntityManager} without a shard (Spring Data's repository bootstrap, a
 * {@code @Transactional} method, {@code @DataJpaTest}) work, and nothing sharded silently lands on
 * a default shard.
 */
public final class ShardContextResolver implements CurrentTenantIdentifierResolver<String> {

  /** The tenant identifier of a session opened without a shard. No shard can be named so. */
  public static final String NO_SHARD = ShardSessions.NO_SHARD;

  private volatile ShardwiseMetrics metrics = ShardwiseMetrics.none();

  /**
   * Hibernate asks this once for every session it opens. A session Shardwise opens itself (by key,
   * by shard, for a scatter query) is counted where it is opened; any other is counted here as a
   * session of the thread's {@link ShardContext}, or of no shard.
   */
  @Override
  public String resolveCurrentTenantIdentifier() {
    String opening = ShardSessions.opening();
    if (opening != null) {
      return opening;
    }
    String shard = ShardContext.current();
    metrics.sessionOpened(shard == null ? SessionKind.NO_SHARD : SessionKind.CONTEXT, shard);
    return shard == null ? NO_SHARD : shard;
  }

  /** Set by {@link ShardwiseIntegrator} once the session factory's components exist. */
  void countSessionsIn(ShardwiseMetrics metrics) {
    this.metrics = metrics;
  }

  @Override
  public boolean validateExistingCurrentSessions() {
    return true;
  }
}
