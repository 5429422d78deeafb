package io.shardwise.hibernate;

import static io.shardwise.hibernate.ShardDeadlineTest.assertNoConnectionOut;
import static io.shardwise.hibernate.ShardDeadlineTest.components;
import static io.shardwise.hibernate.ShardDeadlineTest.elapsedMs;
import static io.shardwise.hibernate.ShardDeadlineTest.keyOn;
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

  /** What {@link #load} saw. */
  record Load(int commits, int saturated, int unavailable, List<Throwable> other, double seconds) {
    double commitsPerSecond() {
      return commits / seconds;
    }
  }

  /**
   * {@code callers} threads (virtual threads on JDK 21+) run 200 ms transactions ({@code pg_sleep(0.2)}) on {@code key}'s shard
   * for {@code seconds}; a refused caller backs off 50 ms, as the exception's message asks.
   */
  static Load load(ShardedSessions shards, long key, int callers, double seconds) throws Exception {
    java.util.concurrent.atomic.AtomicInteger commits = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger saturated = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger unavailable = new java.util.concurrent.atomic.AtomicInteger();
    List<Throwable> other = java.util.Collections.synchronizedList(new ArrayList<>());
    ExecutorService threads = CallerThreads.callers(callers);
    long started = System.nanoTime();
    long end = started + (long) (seconds * 1e9);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        running.add(threads.submit(() -> {
          while (System.nanoTime() < end) {
            try {
              shards.forKey(key).inTransaction(s -> s.doWork(c -> {
                try (java.sql.Statement st = c.createStatement()) {
                  st.execute("SELECT pg_sleep(0.2)");
                }
              }));
              commits.incrementAndGet();
              continue;
            } catch (ShardSaturatedException e) {
              saturated.incrementAndGet();
            } catch (ShardUnavailableException e) {
              unavailable.incrementAndGet();
            } catch (RuntimeException e) {
              other.add(e);
            }
            Thread.sleep(50);
          }
          return null;
        }));
      }
      for (Future<?> f : running) {
        f.get((long) seconds + 60, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
      assertTrue(threads.awaitTermination(30, TimeUnit.SECONDS));
    }
    return new Load(commits.get(), saturated.get(), unavailable.get(), other, (System.nanoTime() - started) / 1e9);
  }

  static BreakerState breakerOf(ShardedSessions shards, String shardId) {
    return shards.nodeStatus().stream().filter(n -> n.shardId().equals(shardId)).findFirst().orElseThrow().state();
  }

  /**
   * Issue 27: 32 callers on a pool of 4 with 200 ms transactions. The pool allows 20 commits a
   * second; the shard must commit most of them (docs/failure-handling.md has the measured rate; the
   * bound here is loose, for a shared machine), refuse the rest as saturated, and keep its breaker
   * closed.
   */
  @Test
  void aBusyShardCommitsWhatItsPoolAllowsAndRefusesTheRestAsSaturated(PostgresTopology pg) throws Exception {
    try (SessionFactory sf = ShopFixture.builder(pg).schema("create")
        .property(ShardwiseSettings.POOL_SIZE, "4")
        .property(ShardwiseSettings.POOL_MIN_IDLE, "0")
        .buildSessionFactory()) {
      ShardedSessions shards = ShardedSessions.of(sf);
      long k0 = seedMerchants(shards, "shard0")[0];
      Load load = load(shards, k0, 32, 5);
      System.out.printf("saturation: %d commits in %.1f s = %.1f/s (pool allows 20/s), %d refused as saturated,"
          + " %d unavailable%n", load.commits(), load.seconds(), load.commitsPerSecond(), load.saturated(),
          load.unavailable());
      assertEquals(List.of(), load.other());
      assertEquals(0, load.unavailable(), "a busy shard is never unavailable");
      assertTrue(load.saturated() > 0, "the excess is refused as saturated");
      assertTrue(load.commitsPerSecond() >= 0.5 * 20, "commits " + load.commitsPerSecond() + "/s of the 20/s allowed");
      assertEquals(BreakerState.CLOSED, breakerOf(shards, "shard0"));
    }
  }

  /**
   * The bulkhead, not the number of threads that call, limits a shard: 256 callers (virtual threads
   * on JDK 21+, as an application with {@code spring.threads.virtual.enabled} has) on a pool of 4.
   * The server never runs more of their statements at once than the pool holds, the excess is
   * refused as saturated, and the shard still commits most of what its pool allows.
   */
  @Test
  void aShardIsLimitedByItsBulkheadNotByHowManyThreadsCallIt(PostgresTopology pg) throws Exception {
    try (SessionFactory sf = ShopFixture.builder(pg).schema("create")
        .property(ShardwiseSettings.POOL_SIZE, "4")
        .buildSessionFactory()) {
      ShardedSessions shards = ShardedSessions.of(sf);
      long k0 = seedMerchants(shards, "shard0")[0];
      java.util.concurrent.atomic.AtomicInteger mostAtOnce = new java.util.concurrent.atomic.AtomicInteger();
      java.util.concurrent.atomic.AtomicBoolean loading = new java.util.concurrent.atomic.AtomicBoolean(true);
      Thread watcher = new Thread(() -> {
        try (java.sql.Connection admin = pg.shard(0).primary().dataSource().getConnection();
            java.sql.PreparedStatement st = admin.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                + " WHERE state = 'active' AND query LIKE '%pg_sleep(0.2)%' AND pid <> pg_backend_pid()")) {
          while (loading.get()) {
            try (java.sql.ResultSet rs = st.executeQuery()) {
              rs.next();
              mostAtOnce.accumulateAndGet(rs.getInt(1), Math::max);
            }
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000); // a statement lasts 200 ms
          }
        } catch (java.sql.SQLException e) {
          mostAtOnce.set(-1);
        }
      }, "server-watcher");
      watcher.start();
      Load load;
      try {
        load = load(shards, k0, 256, 3);
      } finally {
        loading.set(false);
        watcher.join();
      }
      System.out.printf("bulkhead, 256 %s callers on a pool of 4: %d commits in %.1f s = %.1f/s (20/s allowed), %d"
          + " refused as saturated, at most %d statements at once on the server%n",
          CallerThreads.virtual() ? "virtual" : "platform", load.commits(), load.seconds(), load.commitsPerSecond(),
          load.saturated(), mostAtOnce.get());
      assertEquals(List.of(), load.other());
      assertEquals(0, load.unavailable(), "a busy shard is never unavailable");
      assertTrue(mostAtOnce.get() >= 1 && mostAtOnce.get() <= 4, "statements at once on the server: " + mostAtOnce);
      assertTrue(load.saturated() > 0, "the excess is refused as saturated");
      assertTrue(load.commitsPerSecond() >= 0.5 * 20, "commits " + load.commitsPerSecond() + "/s of the 20/s allowed");
      assertEquals(BreakerState.CLOSED, breakerOf(shards, "shard0"));
    }
  }

  /**
   * Issue 27: the pool had opened 3 of its 4 connections (the server refuses a 4th: "too many
   * connections for role"), so checkout timeouts came while fewer than all 4 were busy: they were
   * classed unavailable, counted by the breaker, and the breaker opened on a healthy shard. The
   * server answers — units of work end all the time — so they are saturation.
   */
  @Test
  void checkoutTimeoutsOnAPartlyOpenedPoolOfAnAnsweringServerAreSaturation(PostgresTopology pg) throws Exception {
    String role = "saturation_app";
    for (io.shardwise.testkit.PostgresShard shard : pg.shards()) {
      try (java.sql.Connection admin = shard.primary().dataSource().getConnection();
          java.sql.Statement st = admin.createStatement()) {
        st.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '" + role + "') THEN"
            + " CREATE ROLE " + role + " LOGIN; END IF; END $$");
        st.execute("ALTER ROLE " + role + " CONNECTION LIMIT 3");
      }
    }
    Shardwise.Builder builder = Shardwise.configure().credentials(role, null).entities(ShopFixture.ENTITIES);
    for (io.shardwise.testkit.PostgresShard shard : pg.shards()) {
      builder.shard(ShopFixture.shardId(shard.index()), shard.primary().jdbcUrl());
    }
    try (SessionFactory sf = builder
        .property(ShardwiseSettings.POOL_SIZE, "4")
        .property(ShardwiseSettings.POOL_MIN_IDLE, "0")
        .property(ShardwiseSettings.CONNECTION_TIMEOUT, "500")
        .property(ShardwiseSettings.BULKHEAD_MAX_CONCURRENT, "32")
        .buildSessionFactory()) {
      ShardedSessions shards = ShardedSessions.of(sf);
      long k0 = keyOn(shards, "shard0");
      Load load = load(shards, k0, 32, 4);
      System.out.printf("saturation, 3 of 4 connections: %d commits in %.1f s = %.1f/s (15/s allowed), %d refused as"
          + " saturated, %d unavailable%n", load.commits(), load.seconds(), load.commitsPerSecond(), load.saturated(),
          load.unavailable());
      HikariDataSource pool0 = components(sf).pools().poolOf("shard0");
      // 3 at most: a backend that has not exited yet still counts against the limit on a loaded machine
      int opened = pool0.getHikariPoolMXBean().getTotalConnections();
      assertTrue(opened >= 1 && opened <= 3, "the server let the pool open " + opened + " of its 4");
      assertEquals(List.of(), load.other());
      assertTrue(load.saturated() > 0, "checkouts timed out: " + load);
      assertEquals(0, load.unavailable(), "an answering server is never unavailable: " + load);
      assertEquals(BreakerState.CLOSED, breakerOf(shards, "shard0"));
      assertTrue(load.commitsPerSecond() >= 0.5 * 15, "commits " + load.commitsPerSecond() + "/s of the 15/s allowed");
    }
  }
}
