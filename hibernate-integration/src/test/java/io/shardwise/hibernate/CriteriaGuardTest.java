package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.internal.query.GuardedSqmTranslatorFactory;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import org.hibernate.query.sqm.sql.StandardSqmTranslatorFactory;
import org.junit.jupiter.api.Test;

/**
 * A sharded unit whose criteria queries could bypass the guard does not start. The guard itself is
 * {@link CriteriaGuardCases}, on every layout.
 */
// the 3-shard topology the other start-up tests share
@ShardedPostgres(shards = 3, scope = ShardedPostgres.Scope.RUN)
class CriteriaGuardTest {

  @Test
  void aShardedUnitWhoseSqmTranslatorIsNotTheGuardDoesNotStart(PostgresTopology pg) {
    ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class,
        () -> ShopFixture.builder(pg).property(GuardedSqmTranslatorFactory.SETTING,
            StandardSqmTranslatorFactory.class.getName()).buildSessionFactory().close());
    assertTrue(e.getMessage().contains("set hibernate.query.sqm.translator = "
        + GuardedSqmTranslatorFactory.class.getName()), e.getMessage());
  }
}
