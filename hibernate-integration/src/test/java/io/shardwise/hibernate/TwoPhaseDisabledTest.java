package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import org.junit.jupiter.api.Test;

/** Shards without prepared transactions are refused at startup, with the setting to change. */
@ShardedPostgres(shards = 2, settings = "max_prepared_transactions=0")
class TwoPhaseDisabledTest {

  @Test
  void startupNamesTheShardsAndTheSetting(PostgresTopology pg) {
    Throwable e = assertThrows(Throwable.class, () -> BankFixture.builder(pg).schema("create").buildSessionFactory());
    Throwable cause = e;
    while (!(cause instanceof ShardingConfigurationException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    assertTrue(cause instanceof ShardingConfigurationException, e.toString());
    assertTrue(cause.getMessage().contains("[shard0, shard1]"), cause.getMessage());
    assertTrue(cause.getMessage().contains("max_prepared_transactions = 0"), cause.getMessage());
    assertTrue(cause.getMessage().contains("shardwise.tx.enabled = false"), cause.getMessage());
  }

  @Test
  void switchingCrossShardTransactionsOffStartsAndSaysSoWhenUsed(PostgresTopology pg) {
    try (var sf = BankFixture.builder(pg).schema("create").property(ShardwiseSettings.TX_ENABLED, "false")
        .buildSessionFactory()) {
      ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class,
          () -> ShardedSessions.of(sf).atomically(tx -> { }));
      assertTrue(e.getMessage().contains("shardwise.tx.enabled = false"), e.getMessage());
    }
  }
}
