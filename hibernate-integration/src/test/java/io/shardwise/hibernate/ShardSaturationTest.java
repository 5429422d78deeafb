package io.shardwise.hibernate;

import static io.shardwise.hibernate.ShardDeadlineTest.assertNoConnectionOut;
import static io.shardwise.hibernate.ShardDeadlineTest.components;
import static io.shardwise.hibernate.ShardDeadlineTest.elapsedMs;
import static io.shardwise.hibernate.ShardDeadlineTest.seedMerchants;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/**
 * A healthy shard asked for more than its pool: calls beyond the bulkhead fail at once, calls that
 * waited in the pool fail after the checkout timeout, both with {@link ShardSaturatedException} (not
 * {@link ShardUnavailableException}) saying what to change; the other shard is untouched.
 */
@ShardedPostgres(shards = 2)
class ShardSaturationTest {

  @Test
  void aBusyShardIsReportedAsSaturatedNotDown(PostgresTopology pg) throws Exception {
    try (SessionFactory sf = ShopFixture.builder(pg).schema("create")
        .property(ShardwiseSettings.POOL_SIZE, "2")
        .property(ShardwiseSettings.CONNECTION_TIMEOUT, "3000")
        .buildSessionFactory()) {
      ShardedSessions shards = ShardedSessions.of(sf);
      long[] keys = seedMerchants(shards, "shard0", "shard1");
      long k0 = keys[0];
      long k1 = keys[1];
      CountDownLatch release = new CountDownLatch(1);
      CountDownLatch holding = new CountDownLatch(2);
      ExecutorService threads = Executors.newFixedThreadPool(4);
      try {
        // two units of work hold shard0's two connections
        List<Future<?>> holders = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          holders.add(threads.submit(() -> {
            shards.forKey(k0).inTransaction(s -> {
              s.find(Merchant.class, k0);
              holding.countDown();
              await().atMost(Duration.ofSeconds(30)).until(() -> release.getCount() == 0);
            });
            return null;
          }));
        }
        assertTrue(holding.await(30, TimeUnit.SECONDS));
        // two more wait in the pool: the bulkhead (2 × pool size = 4) is full
        List<Future<?>> waiters = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          waiters.add(threads.submit(() -> shards.forKey(k0).fromSession(s -> s.find(Merchant.class, k0).getName())));
        }
        HikariDataSource pool0 = components(sf).pools().poolOf("shard0");
        await().atMost(Duration.ofSeconds(10)).until(() -> pool0.getHikariPoolMXBean().getThreadsAwaitingConnection() == 2);

        long started = System.nanoTime();
        ShardSaturatedException refused = assertThrows(ShardSaturatedException.class,
            () -> shards.forKey(k0).fromSession(s -> s.find(Merchant.class, k0)));
        long refusedMs = elapsedMs(started);
        assertTrue(refused.getMessage().startsWith("pool for shard0 exhausted: 2 of 2 busy, 2 waiting"),
            refused.getMessage());
        assertTrue(refused.getMessage().contains("raise shardwise.pool.size or lower the concurrency"),
            refused.getMessage());
        assertEquals("shard0", refused.shardId());
        assertEquals(2, refused.busy());
        assertEquals(2, refused.poolSize());
        assertFalse(ShardUnavailableException.class.isInstance(refused));
        assertTrue(refusedMs < 1000, "refused after " + refusedMs + " ms, not at once");

        // the other shard is untouched
        shards.forKey(k1).inTransaction(s -> s.find(Merchant.class, k1).setName("still serving"));
        assertEquals("still serving", shards.forKey(k1).fromSession(s -> s.find(Merchant.class, k1).getName()));

        // the waiters get no connection within the checkout timeout: saturated too, not unavailable
        for (Future<?> waiter : waiters) {
          ExecutionException e = assertThrows(ExecutionException.class, () -> waiter.get(30, TimeUnit.SECONDS));
          assertTrue(e.getCause() instanceof ShardSaturatedException, String.valueOf(e.getCause()));
          assertTrue(e.getCause().getMessage().contains("no connection came back within 3000 ms"),
              e.getCause().getMessage());
        }
        // the shard's breaker took none of it for a failure
        assertEquals(BreakerState.CLOSED, shards.nodeStatus().stream()
            .filter(n -> n.shardId().equals("shard0")).findFirst().orElseThrow().state());
        release.countDown();
        for (Future<?> holder : holders) {
          holder.get(30, TimeUnit.SECONDS);
        }
      } finally {
        release.countDown();
        threads.shutdownNow();
        assertTrue(threads.awaitTermination(30, TimeUnit.SECONDS));
      }
      assertEquals("m" + k0, shards.forKey(k0).fromSession(s -> s.find(Merchant.class, k0).getName()));
      assertNoConnectionOut(sf);
    }
  }
}
