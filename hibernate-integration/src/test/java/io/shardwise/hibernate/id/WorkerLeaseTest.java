package io.shardwise.hibernate.id;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.testkit.junit.Node;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

@ShardedPostgres(shards = 1)
class WorkerLeaseTest {
  private static final Duration SHORT_TTL = Duration.ofSeconds(1);
  private static final Duration PATIENCE = Duration.ofSeconds(20);

  private final List<WorkerLease> leases = new ArrayList<>();

  @org.junit.jupiter.api.BeforeEach
  void startFromAnEmptyLeaseTable(@Node(shard = 0) DataSource control) throws SQLException {
    execute(control, "DROP SCHEMA IF EXISTS shardwise CASCADE");
    execute(control, "DROP ROLE IF EXISTS lease_a");
  }

  @AfterEach
  void releaseAndForget(@Node(shard = 0) DataSource control) throws SQLException {
    leases.forEach(WorkerLease::close);
    execute(control, "DROP SCHEMA IF EXISTS shardwise CASCADE");
    execute(control, "DROP ROLE IF EXISTS lease_a");
  }

  @Test
  void twoInstancesRacingForTheLastWorkerIdNeverBothGetIt(@Node(shard = 0) String url) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 8; round++) {
        CyclicBarrier start = new CyclicBarrier(2);
        List<Future<WorkerLease>> racers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          racers.add(pool.submit(() -> {
            start.await();
            try {
              return WorkerLease.builder(url).createTableIfMissing(true).user("postgres").maxWorkerId(0).ttl(Duration.ofSeconds(30)).acquire();
            } catch (IllegalStateException e) {
              assertTrue(e.getMessage().contains("all 1 Snowflake worker ids (0..0)"), e.getMessage());
              return null;
            }
          }));
        }
        List<WorkerLease> winners = new ArrayList<>();
        for (Future<WorkerLease> racer : racers) {
          WorkerLease lease = racer.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
          if (lease != null) {
            winners.add(lease);
          }
        }
        assertEquals(1, winners.size(), "round " + round + ": exactly one of two racers may lease worker 0");
        assertEquals(0, winners.get(0).workerId());
        winners.get(0).close(); // frees it at once for the next round
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void concurrentLeasesGetDistinctIdsUntilTheRangeIsFull(@Node(shard = 0) String url) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      CyclicBarrier start = new CyclicBarrier(2);
      List<Future<List<WorkerLease>>> instances = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        instances.add(pool.submit(() -> {
          start.await();
          List<WorkerLease> mine = new ArrayList<>();
          for (int k = 0; k < 4; k++) {
            mine.add(WorkerLease.builder(url).createTableIfMissing(true).user("postgres").maxWorkerId(7).acquire());
          }
          return mine;
        }));
      }
      Set<Integer> ids = new HashSet<>();
      for (Future<List<WorkerLease>> instance : instances) {
        for (WorkerLease lease : instance.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
          leases.add(lease);
          assertTrue(ids.add(lease.workerId()), "worker id " + lease.workerId() + " was leased twice");
        }
      }
      assertEquals(Set.of(0, 1, 2, 3, 4, 5, 6, 7), ids);

      IllegalStateException full = assertThrows(IllegalStateException.class,
          () -> WorkerLease.builder(url).createTableIfMissing(true).user("postgres").maxWorkerId(7).acquire());
      assertTrue(full.getMessage().contains("all 8 Snowflake worker ids (0..7)"), full.getMessage());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void leaseThatCannotBeRenewedStopsGenerationBeforeAnotherInstanceGetsTheId(@Node(shard = 0) String url,
      @Node(shard = 0) DataSource control) throws SQLException {
    execute(control, "CREATE ROLE lease_a LOGIN SUPERUSER");
    WorkerLease a = WorkerLease.builder(url).createTableIfMissing(true).user("lease_a").maxWorkerId(0).ttl(SHORT_TTL).acquire();
    leases.add(a);
    SnowflakeLayout layout = SnowflakeLayout.DEFAULT;
    Snowflake idsA = Snowflake.builder(layout).workerLease(a).build();
    AtomicLong lastOfA = new AtomicLong(idsA.nextId());

    // instance A is cut off from the control database: its renewals fail from now on
    execute(control, "ALTER ROLE lease_a NOLOGIN");

    WorkerLease[] b = new WorkerLease[1];
    await().atMost(PATIENCE).pollInterval(Duration.ofMillis(50)).until(() -> {
      try {
        lastOfA.set(idsA.nextId());
      } catch (WorkerLeaseLostException stopped) {
        // expected once the deadline passes
      }
      try {
        b[0] = WorkerLease.builder(url).createTableIfMissing(true).user("postgres").maxWorkerId(0).ttl(SHORT_TTL).acquire();
        return true;
      } catch (IllegalStateException stillHeld) {
        return false;
      }
    });
    leases.add(b[0]);
    assertEquals(0, b[0].workerId(), "B got A's worker id only after A's lease expired");

    WorkerLeaseLostException lost = assertThrows(WorkerLeaseLostException.class, idsA::nextId);
    assertTrue(lost.getMessage().contains("worker id 0"), lost.getMessage());
    assertTrue(lost.getMessage().contains("last renewal error"), lost.getMessage());
    assertTrue(lost.getMessage().contains("lease_a"), "the cause names the failure: " + lost.getMessage());
    assertFalse(a.isValid());

    Snowflake idsB = Snowflake.builder(layout).workerLease(b[0]).build();
    long firstOfB = idsB.nextId();
    assertTrue(firstOfB > lastOfA.get(), "same worker id, so B's ids must all come after A's last: "
        + layout.decode(lastOfA.get()) + " vs " + layout.decode(firstOfB));
  }

  @Test
  void leaseTakenOverInTheTableIsLostForGood(@Node(shard = 0) String url, @Node(shard = 0) DataSource control)
      throws SQLException {
    WorkerLease a = WorkerLease.builder(url).createTableIfMissing(true).user("postgres").maxWorkerId(3).ttl(SHORT_TTL).acquire();
    leases.add(a);
    Snowflake ids = Snowflake.builder(SnowflakeLayout.DEFAULT).workerLease(a).build();
    ids.nextId();

    execute(control, "UPDATE " + WorkerLease.TABLE + " SET owner = 'intruder' WHERE worker_id = " + a.workerId());

    await().atMost(PATIENCE).until(() -> !a.isValid());
    WorkerLeaseLostException lost = assertThrows(WorkerLeaseLostException.class, ids::nextId);
    assertTrue(lost.getMessage().contains("now belongs to intruder"), lost.getMessage());
  }

  @Test
  void heartbeatKeepsTheLeaseAliveAndCloseFreesTheIdAtOnce(@Node(shard = 0) String url) throws Exception {
    WorkerLease a = WorkerLease.builder(url).createTableIfMissing(true).user("postgres").maxWorkerId(0).ttl(SHORT_TTL).acquire();
    leases.add(a);
    Snowflake ids = Snowflake.builder(SnowflakeLayout.DEFAULT).workerLease(a).build();
    long start = System.currentTimeMillis();
    // outlive several TTLs: only the heartbeat can keep the lease valid that long
    await().atMost(PATIENCE).pollInterval(Duration.ofMillis(100)).until(() -> {
      ids.nextId();
      return System.currentTimeMillis() - start > 3 * SHORT_TTL.toMillis();
    });
    assertThrows(IllegalStateException.class,
        () -> WorkerLease.builder(url).createTableIfMissing(true).user("postgres").maxWorkerId(0).acquire(), "worker 0 is still held");

    a.close();
    assertThrows(WorkerLeaseLostException.class, ids::nextId);
    WorkerLease again = WorkerLease.builder(url).createTableIfMissing(true).user("postgres").maxWorkerId(0).acquire();
    leases.add(again);
    assertEquals(0, again.workerId());
    assertNotEquals(a.owner(), again.owner());
  }

  @Test
  void badLeaseOptionsAreRejectedWithTheValue() {
    IllegalArgumentException url = assertThrows(IllegalArgumentException.class,
        () -> WorkerLease.builder("jdbc:mysql://db/x?password=secret"));
    assertTrue(url.getMessage().contains("jdbc:mysql://db/x?password=***") && !url.getMessage().contains("secret"),
        url.getMessage());
    IllegalArgumentException ttl = assertThrows(IllegalArgumentException.class,
        () -> WorkerLease.builder("jdbc:postgresql://db/x").ttl(Duration.ofMillis(200)));
    assertTrue(ttl.getMessage().contains("PT0.2S"), ttl.getMessage());
  }

  private static void execute(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
