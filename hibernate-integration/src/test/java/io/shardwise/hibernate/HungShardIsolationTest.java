package io.shardwise.hibernate;

import static io.shardwise.hibernate.ShardDeadlineTest.assertNoConnectionOut;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One sick shard costs its own keys their availability, never the rest of the application: three
 * shards with one replica each under a mixed load of writes and read-only reads by eight threads,
 * each thread writing its own key on every shard and checking every value it reads against what it
 * wrote. Counting completed calls per shard in a baseline window and in a window with shard1's
 * primary and shard0's replica frozen (same length, same test) checks the isolation.
 *
 * <p>{@link #soak} runs random freezes, kills and restarts for {@code -Dshardwise.soak.seconds}
 * (12 s by default; the {@code soak} Maven profile sets 600) and checks the ledger at the end.
 */
@ShardedPostgres(shards = 3, replicas = 1)
class HungShardIsolationTest {
  private static final int THREADS = 8;
  private static final int SHARDS = 3;
  private static final long WINDOW_MS = 2500;
  /** The longest a call may wait on a frozen node: the replica/primary socket timeout (2 s) and 1 s. */
  private static final long FROZEN_CALL_LIMIT_MS = 2000 + 1000;
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;
  /** keys[thread][shard]: the key each thread owns on each shard. */
  private static long[][] keys;

  @BeforeAll
  static void start(PostgresTopology pg) {
    Shardwise.Builder b = ShopFixture.builder(pg).schema("create")
        .property(ShardwiseSettings.POOL_SIZE, Integer.toString(THREADS))
        .property(ShardwiseSettings.BULKHEAD_MAX_CONCURRENT, Integer.toString(THREADS))
        .property(ShardwiseSettings.CONNECTION_TIMEOUT, "1000")
        .property(ShardwiseSettings.BREAKER_OPEN_MS, "500")
        .property(ShardwiseSettings.REPLICA_CONNECTION_TIMEOUT, "500")
        .property(ShardwiseSettings.REPLICA_MAX_LAG_MS, "3000");
    for (String role : List.of(ShardwiseSettings.REPLICA_PREFIX, "shardwise.primary.")) {
      b.property(role + ShardwiseSettings.STATEMENT_TIMEOUT_MS, "1000")
          .property(role + ShardwiseSettings.SOCKET_TIMEOUT_MS, "2000");
    }
    for (PostgresShard shard : pg.shards()) {
      b.replica(ShopFixture.shardId(shard.index()), shard.replica(0).jdbcUrl());
    }
    sessionFactory = b.buildSessionFactory();
    shards = ShardedSessions.of(sessionFactory);
    keys = new long[THREADS][SHARDS];
    int[] taken = new int[SHARDS];
    for (long k = 1; taken[0] + taken[1] + taken[2] < THREADS * SHARDS; k++) {
      int shard = Integer.parseInt(shards.shardFor(k).substring("shard".length()));
      if (taken[shard] < THREADS) {
        keys[taken[shard]++][shard] = k;
      }
    }
    for (long[] own : keys) {
      for (long k : own) {
        shards.forKey(k).inTransaction(s -> s.persist(new Merchant(k, "0", null)));
      }
    }
  }

  @AfterAll
  static void stop() {
    sessionFactory.close();
  }

  @AfterEach
  void everyNodeBack(PostgresTopology pg) {
    for (PostgresShard shard : pg.shards()) {
      for (PostgresNode node : List.of(shard.primary(), shard.replica(0))) {
        if (node.isFrozen()) {
          node.thaw();
        }
        if (!node.isRunning()) {
          node.start();
        }
      }
    }
  }

  @Test
  void aFrozenPrimaryAndAFrozenReplicaCostOnlyTheirOwnKeys(PostgresTopology pg) throws Exception {
    awaitReplicasHealthy();
    try (Load load = new Load()) {
      load.window(Phase.WARM_UP, 2000);
      load.window(Phase.BASELINE, WINDOW_MS);
      PostgresNode frozenPrimary = pg.shard(1).primary();
      PostgresNode frozenReplica = pg.shard(0).replica(0);
      load.phase = Phase.SETTLING;
      frozenPrimary.freeze();
      frozenReplica.freeze();
      // the window starts once the frozen primary's breaker is open and the frozen replica is out
      await().atMost(Duration.ofSeconds(15)).until(() -> shards.nodeStatus().stream().anyMatch(
          n -> n.shardId().equals("shard1") && n.node().startsWith("primary") && n.state() != BreakerState.CLOSED)
          && shards.replicaStatus().stream().anyMatch(r -> r.shardId().equals("shard0") && !r.healthy()));
      load.window(Phase.FROZEN, WINDOW_MS);

      long thawedAt = System.nanoTime();
      load.phase = Phase.THAWED;
      frozenPrimary.thaw();
      frozenReplica.thaw();
      // back in service: the first write to shard1 that any thread completes after the thaw
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
          .until(() -> load.firstWriteAfterThaw[1].get() != 0);
      long backMs = (load.firstWriteAfterThaw[1].get() - thawedAt) / 1_000_000;
      load.stopAndJoin();

      String report = load.report() + ", back " + backMs + " ms after the thaw";
      System.out.println("HungShardIsolationTest: " + report);
      assertTrue(load.wrongAnswers.isEmpty(), "wrong answers: " + load.wrongAnswers);
      assertTrue(load.unexpected.isEmpty(), "unexpected failures: " + load.unexpected);
      for (int shard : new int[] {0, 2}) {
        long before = load.ok[Phase.BASELINE.ordinal()][shard].sum();
        long during = load.ok[Phase.FROZEN.ordinal()][shard].sum();
        assertTrue(before > 0, report);
        assertTrue(during >= 0.8 * before, "shard" + shard + " kept " + during + " of " + before + " calls: " + report);
      }
      assertTrue(load.replicaReads[Phase.FROZEN.ordinal()][1].sum() > 0, "shard1's keys read from its replica: "
          + report);
      assertEquals(0, load.readFailures[Phase.FROZEN.ordinal()][1].sum(), "no read of shard1's keys failed: " + report);
      assertTrue(load.slowestFailureMs.get() <= FROZEN_CALL_LIMIT_MS, report);
      // the target is 1 s; the slack is thread scheduling on a build machine shared with other builds
      // (1.6 s and 2.6 s were seen at a load average of 32 on 2 cores)
      assertTrue(backMs < 1000 + ShardDeadlineTest.SLACK_MS, report);
    }
    assertNoConnectionOut(sessionFactory);
    assertLedger();
    assertSaturationIsReportedAsSuch();
  }

  @Test
  void soak(PostgresTopology pg) throws Exception {
    long seconds = Long.getLong("shardwise.soak.seconds", 12);
    awaitReplicasHealthy();
    Random random = new Random(Long.getLong("shardwise.soak.seed", System.nanoTime()));
    List<String> events = new ArrayList<>();
    try (Load load = new Load()) {
      load.phase = Phase.SOAK;
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      while (System.nanoTime() < end) {
        PostgresShard shard = pg.shard(random.nextInt(SHARDS));
        PostgresNode node = random.nextBoolean() ? shard.primary() : shard.replica(0);
        int action = random.nextInt(3);
        events.add(node.name() + (action == 0 ? " frozen" : action == 1 ? " killed" : " stopped"));
        switch (action) {
          case 0 -> node.freeze();
          case 1 -> node.kill();
          default -> node.stop();
        }
        long outageEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500 + random.nextInt(2000));
        await().atMost(Duration.ofSeconds(5)).until(() -> System.nanoTime() >= outageEnd);
        if (node.isFrozen()) {
          node.thaw();
        } else {
          node.start();
        }
      }
      load.stopAndJoin();
      System.out.println("HungShardIsolationTest.soak: " + events.size() + " outages (" + events + "): "
          + load.report());
      assertTrue(load.wrongAnswers.isEmpty(), "wrong answers: " + load.wrongAnswers);
      assertTrue(load.unexpected.isEmpty(), "unexpected failures: " + load.unexpected);
      assertTrue(load.ok[Phase.SOAK.ordinal()][0].sum() + load.ok[Phase.SOAK.ordinal()][2].sum() > 0, load.report());
    }
    awaitReplicasHealthy();
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
      assertLedger();
      return true;
    });
    assertNoConnectionOut(sessionFactory);
  }

  private static void awaitReplicasHealthy() {
    await().atMost(Duration.ofSeconds(60)).until(() -> {
      shards.checkReplicasNow();
      return shards.replicaStatus().stream().allMatch(ReplicaStatus::healthy);
    });
  }

  /** Every key holds what its thread last wrote, or the write whose commit's outcome it did not learn. */
  private static void assertLedger() {
    for (int t = 0; t < THREADS; t++) {
      for (int shard = 0; shard < SHARDS; shard++) {
        long k = keys[t][shard];
        long stored = Long.parseLong(shards.forKey(k).fromTransaction(s -> s.find(Merchant.class, k)).getName());
        long acked = Ledger.acked[t][shard];
        long attempted = Ledger.attempted[t][shard];
        assertTrue(stored >= acked && stored <= attempted, "key " + k + " holds " + stored + ", its thread had "
            + acked + " acknowledged and " + attempted + " attempted");
      }
    }
  }

  private static void assertSaturationIsReportedAsSuch() throws Exception {
    long key = keys[0][2];
    CountDownLatch holding = new CountDownLatch(THREADS);
    CountDownLatch release = new CountDownLatch(1);
    List<Thread> holders = new ArrayList<>();
    for (int i = 0; i < THREADS; i++) {
      Thread holder = new Thread(() -> shards.forKey(key).inTransaction(s -> {
        s.find(Merchant.class, key);
        holding.countDown();
        try {
          release.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }));
      holder.start();
      holders.add(holder);
    }
    try {
      assertTrue(holding.await(30, TimeUnit.SECONDS));
      ShardSaturatedException e = assertThrows(ShardSaturatedException.class,
          () -> shards.forKey(key).inTransaction(s -> s.find(Merchant.class, key)));
      assertTrue(e.getMessage().startsWith("pool for shard2 exhausted: " + THREADS + " of " + THREADS + " busy"), e.getMessage());
      assertTrue(e.getMessage().contains("raise shardwise.pool.size or lower the concurrency"), e.getMessage());
    } finally {
      release.countDown();
      for (Thread holder : holders) {
        holder.join(30_000);
      }
    }
  }

  private enum Phase { WARM_UP, BASELINE, SETTLING, FROZEN, THAWED, SOAK }

  /** What each thread wrote: acknowledged, and attempted (a commit may fail with its outcome unknown). */
  private static final class Ledger {
    static final long[][] acked = new long[THREADS][SHARDS];
    static final long[][] attempted = new long[THREADS][SHARDS];
  }

  /** The worker threads and what they counted, per phase and shard. */
  private static final class Load implements AutoCloseable {
    volatile Phase phase = Phase.WARM_UP;
    volatile boolean running = true;
    final LongAdder[][] ok = adders();
    final LongAdder[][] replicaReads = adders();
    final LongAdder[][] readFailures = adders();
    final LongAdder[][] failures = adders();
    final AtomicLong slowestFailureMs = new AtomicLong();
    /** When a write to each shard first succeeded in the {@code THAWED} phase (System.nanoTime()), or 0. */
    final AtomicLong[] firstWriteAfterThaw = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
    final Queue<String> wrongAnswers = new ConcurrentLinkedQueue<>();
    final Queue<String> unexpected = new ConcurrentLinkedQueue<>();
    private final List<Thread> threads = new ArrayList<>();

    Load() throws Exception {
      CyclicBarrier ready = new CyclicBarrier(THREADS + 1);
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        Thread worker = new Thread(() -> {
          try {
            ready.await();
          } catch (Exception e) {
            return;
          }
          while (running) {
            for (int shard = 0; shard < SHARDS && running; shard++) {
              write(thread, shard);
              read(thread, shard);
            }
          }
        }, "load-" + t);
        worker.start();
        threads.add(worker);
      }
      ready.await();
    }

    private static LongAdder[][] adders() {
      LongAdder[][] a = new LongAdder[Phase.values().length][SHARDS];
      for (LongAdder[] row : a) {
        for (int i = 0; i < row.length; i++) {
          row[i] = new LongAdder();
        }
      }
      return a;
    }

    /** Runs the load in {@code p} for {@code millis}, then returns. */
    void window(Phase p, long millis) {
      phase = p;
      long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
      await().atMost(Duration.ofMillis(millis + 5000)).until(() -> System.nanoTime() >= end);
    }

    private void write(int thread, int shard) {
      long k = keys[thread][shard];
      long next = Ledger.attempted[thread][shard] + 1;
      Ledger.attempted[thread][shard] = next;
      Phase p = phase;
      long started = System.nanoTime();
      try {
        shards.forKey(k).inTransaction(s -> s.find(Merchant.class, k).setName(Long.toString(next)));
        Ledger.acked[thread][shard] = next;
        ok[p.ordinal()][shard].increment();
        if (phase == Phase.THAWED) {
          firstWriteAfterThaw[shard].compareAndSet(0, System.nanoTime());
        }
      } catch (ShardUnavailableException | ShardSaturatedException e) {
        failed(p, shard, started);
      } catch (RuntimeException e) {
        unexpected.add("write of " + k + ": " + e);
      }
    }

    private void read(int thread, int shard) {
      long k = keys[thread][shard];
      Phase p = phase;
      long started = System.nanoTime();
      try {
        Object[] seen = shards.forKey(k).readOnly().fromSession(s -> new Object[] {
            s.find(Merchant.class, k).getName(),
            s.createNativeQuery("SELECT pg_is_in_recovery()", Boolean.class).getSingleResult()});
        long value = Long.parseLong((String) seen[0]);
        // a replica may be behind, never ahead of what this thread attempted
        if (value < 0 || value > Ledger.attempted[thread][shard]) {
          wrongAnswers.add("key " + k + " read " + value + " after " + Ledger.attempted[thread][shard] + " attempted");
        }
        ok[p.ordinal()][shard].increment();
        if ((Boolean) seen[1]) {
          replicaReads[p.ordinal()][shard].increment();
        }
      } catch (ShardUnavailableException | ShardSaturatedException e) {
        readFailures[p.ordinal()][shard].increment();
        failed(p, shard, started);
      } catch (RuntimeException e) {
        unexpected.add("read of " + k + ": " + e);
      }
    }

    private void failed(Phase p, int shard, long started) {
      failures[p.ordinal()][shard].increment();
      if (p == Phase.SETTLING || p == Phase.FROZEN) {
        slowestFailureMs.accumulateAndGet((System.nanoTime() - started) / 1_000_000, Math::max);
      }
    }

    String report() {
      StringBuilder out = new StringBuilder();
      for (Phase p : Phase.values()) {
        int i = p.ordinal();
        out.append(p).append(": ok ");
        for (int shard = 0; shard < SHARDS; shard++) {
          out.append(shard == 0 ? "" : "/").append(ok[i][shard].sum());
        }
        out.append(" failed ");
        for (int shard = 0; shard < SHARDS; shard++) {
          out.append(shard == 0 ? "" : "/").append(failures[i][shard].sum());
        }
        out.append(" replica reads ");
        for (int shard = 0; shard < SHARDS; shard++) {
          out.append(shard == 0 ? "" : "/").append(replicaReads[i][shard].sum());
        }
        out.append("; ");
      }
      return out.append("slowest failure ").append(slowestFailureMs.get()).append(" ms").toString();
    }

    void stopAndJoin() throws InterruptedException {
      running = false;
      for (Thread t : threads) {
        t.join(30_000);
        assertTrue(!t.isAlive(), t.getName() + " still runs");
      }
    }

    @Override
    public void close() throws InterruptedException {
      stopAndJoin();
    }
  }
}
