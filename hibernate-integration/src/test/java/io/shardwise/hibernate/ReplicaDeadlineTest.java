package io.shardwise.hibernate;

import static io.shardwise.hibernate.ShardDeadlineTest.SLACK_MS;
import static io.shardwise.hibernate.ShardDeadlineTest.assertNoConnectionOut;
import static io.shardwise.hibernate.ShardDeadlineTest.elapsedMs;
import static io.shardwise.hibernate.ShardDeadlineTest.seedMerchants;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.time.Duration;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/**
 * A frozen replica: a read in flight on it fails within the replica's socket timeout (sooner when
 * the replica monitor finds the replica silent and aborts its connections), naming the
 * shard and which replica; the reads after it are served (by the primary), checked by value.
 */
@ShardedPostgres(shards = 2, replicas = 1)
class ReplicaDeadlineTest {
  static final long REPLICA_SOCKET_MS = 2000;

  @Test
  void aReadInFlightOnAFrozenReplicaFailsWithinItsDeadlineNamingTheReplica(PostgresTopology pg) {
    Shardwise.Builder builder = ShopFixture.builder(pg).schema("create")
        .property(ShardwiseSettings.REPLICA_PREFIX + ShardwiseSettings.STATEMENT_TIMEOUT_MS, "1000")
        .property(ShardwiseSettings.REPLICA_PREFIX + ShardwiseSettings.SOCKET_TIMEOUT_MS, Long.toString(REPLICA_SOCKET_MS));
    for (PostgresShard shard : pg.shards()) {
      builder.replica(ShopFixture.shardId(shard.index()), shard.replica(0).jdbcUrl());
    }
    try (SessionFactory sf = builder.buildSessionFactory()) {
      ShardedSessions shards = ShardedSessions.of(sf);
      long[] keys = seedMerchants(shards, "shard0", "shard1");
      long k0 = keys[0];
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        shards.checkReplicasNow();
        return shards.replicaStatus().stream().allMatch(ReplicaStatus::healthy)
            && ("m" + k0).equals(shards.forKey(k0).readOnly().fromSession(s -> s.find(Merchant.class, k0).getName()));
      });
      PostgresNode replica0 = pg.shard(0).replica(0);
      long[] frozenAt = new long[1];
      try {
        // a session the application opened itself: the callback routes would retry the read elsewhere
        // (ReplicaFailoverTest), this one shows the failure
        ShardUnavailableException e;
        try (Session s = shards.forKey(k0).readOnly().openSession()) {
          s.beginTransaction();
          s.find(Merchant.class, k0);
          replica0.freeze();
          frozenAt[0] = System.nanoTime();
          e = assertThrows(ShardUnavailableException.class,
              () -> s.createNativeQuery("SELECT count(*) FROM merchant WHERE id = " + k0, Long.class).getSingleResult());
        }
        long tookMs = elapsedMs(frozenAt[0]);
        System.out.println("ReplicaDeadlineTest: the read in flight failed " + tookMs + " ms after the freeze: "
            + e.getMessage());
        assertEquals("shard0", e.shardId());
        assertEquals("replica " + replica0.host() + ":" + replica0.port(), e.node());
        // the socket timeout, or sooner the replica monitor's check that got no answer
        assertTrue(e.getMessage().contains("timed out after " + REPLICA_SOCKET_MS + " ms")
            || e.getMessage().contains("stopped answering"), e.getMessage());
        assertTrue(tookMs < REPLICA_SOCKET_MS + SLACK_MS, "took " + tookMs + " ms");

        // later reads are served, by the primary, within the replica checkout timeout (1 s) and the slack
        long started = System.nanoTime();
        assertEquals("m" + k0, shards.forKey(k0).readOnly().fromSession(s -> s.find(Merchant.class, k0).getName()));
        long readMs = elapsedMs(started);
        assertTrue(readMs < 1000 + SLACK_MS, "the next read took " + readMs + " ms");
        // and the other shard's replica reads go on
        assertEquals("m" + keys[1], shards.forKey(keys[1]).readOnly()
            .fromSession(s -> s.find(Merchant.class, keys[1]).getName()));
      } finally {
        replica0.thaw();
      }
      assertNoConnectionOut(sf);
    }
  }
}
