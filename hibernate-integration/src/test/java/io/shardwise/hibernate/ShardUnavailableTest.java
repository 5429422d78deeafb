package io.shardwise.hibernate;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.shop.Merchant;
import java.time.Duration;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/** A shard whose primary is down fails fast with the shard's name; the other shards keep serving. */
@ShardedPostgres(shards = 2)
class ShardUnavailableTest {

  @Test
  void aKilledPrimaryOnlyTakesItsOwnShardDown(PostgresTopology pg) {
    try (SessionFactory sf = ShopFixture.builder(pg).schema("create")
        .property(ShardwiseSettings.CONNECTION_TIMEOUT, "1000").buildSessionFactory()) {
      ShardedSessions shards = ShardedSessions.of(sf);
      long onShard0 = keyOn(shards, "shard0");
      long onShard1 = keyOn(shards, "shard1");
      shards.forKey(onShard1).inTransaction(s -> s.persist(new Merchant(onShard1, "before the crash", null)));

      PostgresNode primary1 = pg.shard(1).primary();
      primary1.kill();
      try {
        ShardUnavailableException e = assertThrows(ShardUnavailableException.class,
            () -> shards.forKey(onShard1).fromSession(s -> s.find(Merchant.class, onShard1)));
        assertTrue(e.getMessage().startsWith("Shard 'shard1' is unavailable"), e.getMessage());
        assertTrue(e.getMessage().contains(primary1.jdbcUrl()), e.getMessage());
        assertTrue(e.getMessage().contains("last driver error"), e.getMessage());

        shards.forKey(onShard0).inTransaction(s -> s.persist(new Merchant(onShard0, "still serving", null)));
        assertEquals("still serving", shards.forKey(onShard0).fromSession(s -> s.find(Merchant.class, onShard0)).getName());
      } finally {
        primary1.start();
      }
      // HikariCP retries a dead server with a growing backoff (up to 5 s): the first requests after
      // the restart may still time out, as the exception's message tells callers to expect
      await().atMost(Duration.ofSeconds(30)).ignoreException(ShardUnavailableException.class)
          .until(() -> "before the crash".equals(
              shards.forKey(onShard1).fromSession(s -> s.find(Merchant.class, onShard1)).getName()));
    }
  }

  private static long keyOn(ShardedSessions shards, String shard) {
    for (long k = 1; ; k++) {
      if (shards.shardFor(k).equals(shard)) {
        return k;
      }
    }
  }
}
