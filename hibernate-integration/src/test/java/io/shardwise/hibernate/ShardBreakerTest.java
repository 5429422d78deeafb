package io.shardwise.hibernate;

import static io.shardwise.hibernate.ShardDeadlineTest.assertNoConnectionOut;
import static io.shardwise.hibernate.ShardDeadlineTest.elapsedMs;
import static io.shardwise.hibernate.ShardDeadlineTest.seedMerchants;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/**
 * The circuit breaker of a frozen primary: after two timeouts (or the monitor's check that gets no
 * answer, whichever comes first) its calls fail at once, with the
 * breaker's state in the exception and in {@link ShardedSessions#nodeStatus()}; while it is open,
 * at most one thread at a time (the probe) waits on the frozen server, however many call; the other
 * shard keeps answering; after the thaw one probe closes it.
 */
@ShardedPostgres(shards = 2)
class ShardBreakerTest {

  @Test
  void aFrozenPrimaryOpensItsBreakerAndOneProbeClosesItAfterTheThaw(PostgresTopology pg) throws Exception {
    try (SessionFactory sf = ShopFixture.builder(pg).schema("create")
        .property(ShardwiseSettings.CONNECTION_TIMEOUT, "1000")
        .property(ShardwiseSettings.PRIMARY_PREFIX + ShardwiseSettings.STATEMENT_TIMEOUT_MS, "1000")
        .property(ShardwiseSettings.PRIMARY_PREFIX + ShardwiseSettings.SOCKET_TIMEOUT_MS, "2000")
        .property(ShardwiseSettings.BREAKER_FAILURE_THRESHOLD, "2")
        .property(ShardwiseSettings.BREAKER_OPEN_MS, "300")
        .buildSessionFactory()) {
      ShardedSessions shards = ShardedSessions.of(sf);
      long[] keys = seedMerchants(shards, "shard0", "shard1");
      long k0 = keys[0];
      long k1 = keys[1];
      PostgresNode primary1 = pg.shard(1).primary();
      String node1 = "primary " + primary1.host() + ":" + primary1.port();
      assertEquals(BreakerState.CLOSED, statusOf(shards, "shard1").state());

      primary1.freeze();
      ExecutorService callers = Executors.newFixedThreadPool(8);
      try {
        // two timeouts open the breaker, or the replica monitor's check finds the primary silent first
        for (int i = 0; i < 2 && statusOf(shards, "shard1").state() == BreakerState.CLOSED; i++) {
          ShardUnavailableException e = assertThrows(ShardUnavailableException.class, () -> read(shards, k1));
          if (e.breakerState() == null) { // the server itself was tried
            assertTrue(e.getMessage().contains("timed out after") || e.getMessage().contains("stopped answering"),
                e.getMessage());
          }
        }
        long started = System.nanoTime();
        ShardUnavailableException refused = assertThrows(ShardUnavailableException.class, () -> read(shards, k1));
        long refusedMs = elapsedMs(started);
        assertEquals(BreakerState.OPEN, refused.breakerState(), refused.getMessage());
        assertEquals("shard1", refused.shardId());
        assertEquals(node1, refused.node());
        assertTrue(refused.getMessage().contains("circuit breaker of its " + node1 + " is OPEN"), refused.getMessage());
        assertTrue(refusedMs < 1000, "refused after " + refusedMs + " ms, not at once");
        NodeStatus status = statusOf(shards, "shard1");
        assertTrue(status.state() != BreakerState.CLOSED, status.toString());
        assertNotNull(status.lastFailure(), status.toString());
        assertNotNull(status.openedAt(), status.toString());

        // eight threads keep calling the frozen shard for 3 s: only probes wait, one at a time
        List<long[]> slowCalls = Collections.synchronizedList(new ArrayList<>());
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        List<Future<Integer>> results = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          results.add(callers.submit(() -> {
            int calls = 0;
            while (System.nanoTime() < until) {
              long callStarted = System.nanoTime();
              assertThrows(ShardUnavailableException.class, () -> read(shards, k1));
              long callEnded = System.nanoTime();
              if (callEnded - callStarted > TimeUnit.MILLISECONDS.toNanos(500)) {
                slowCalls.add(new long[] {callStarted, callEnded});
              }
              calls++;
            }
            return calls;
          }));
        }
        // the other shard answers all along, checked by value
        for (int n = 0; System.nanoTime() < until; n++) {
          String name = "m" + k0 + "-" + n;
          shards.forKey(k0).inTransaction(s -> s.find(Merchant.class, k0).setName(name));
          assertEquals(name, read(shards, k0));
        }
        int calls = 0;
        for (Future<Integer> f : results) {
          calls += f.get(30, TimeUnit.SECONDS);
        }
        assertTrue(maxOverlap(slowCalls) <= 1, "threads waited on the frozen primary together: " + slowCalls.size()
            + " slow calls of " + calls);
        System.out.println("ShardBreakerTest: " + calls + " calls to the frozen shard, " + slowCalls.size()
            + " of them probes that waited; refused calls took " + refusedMs + " ms");
      } finally {
        primary1.thaw();
        callers.shutdownNow();
        assertTrue(callers.awaitTermination(30, TimeUnit.SECONDS));
      }
      long thawed = System.nanoTime();
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
          .ignoreException(ShardUnavailableException.class)
          .until(() -> ("m" + k1).equals(read(shards, k1)));
      System.out.println("ShardBreakerTest: shard1 served again " + elapsedMs(thawed) + " ms after the thaw");
      assertEquals(BreakerState.CLOSED, statusOf(shards, "shard1").state());
      assertEquals(0, statusOf(shards, "shard1").consecutiveFailures());
      assertNoConnectionOut(sf);
    }
  }

  private static String read(ShardedSessions shards, long key) {
    return shards.forKey(key).fromSession(s -> s.find(Merchant.class, key).getName());
  }

  private static NodeStatus statusOf(ShardedSessions shards, String shardId) {
    return shards.nodeStatus().stream().filter(n -> n.shardId().equals(shardId)).findFirst().orElseThrow();
  }

  /** The most intervals that cover one instant. */
  private static int maxOverlap(List<long[]> intervals) {
    int most = 0;
    synchronized (intervals) {
      for (long[] a : intervals) {
        int covering = 0;
        for (long[] b : intervals) {
          if (b[0] <= a[0] && a[0] < b[1]) {
            covering++;
          }
        }
        most = Math.max(most, covering);
      }
    }
    return most;
  }
}
