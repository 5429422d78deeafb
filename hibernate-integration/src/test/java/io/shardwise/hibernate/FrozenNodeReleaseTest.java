package io.shardwise.hibernate;

import static io.shardwise.hibernate.ShardDeadlineTest.assertNoConnectionOut;
import static io.shardwise.hibernate.ShardDeadlineTest.elapsedMs;
import static io.shardwise.hibernate.ShardDeadlineTest.keyOn;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.hibernate.rw.Profile;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A frozen node releases the callers already inside a statement on it, with default settings (a
 * socket timeout of 15 s): the replica monitor's check gets no answer, the node's breaker opens and
 * aborts the connections it lent, and each caller fails at once with {@link ShardUnavailableException}
 * naming the shard and the server — or, for a read on a replica, gets its answer from the primary.
 * A statement that is merely long, on a server that answers the monitor, runs to its end. Times are
 * the callers' own, asserted loosely (well under the socket timeout): the precise figures come from
 * {@code FrozenNodeWorkload} in benchmarks/.
 */
@ShardedPostgres(shards = 2, replicas = 1)
class FrozenNodeReleaseTest {
  /** Well under the 15 s socket timeout a caller would otherwise wait, with room for a loaded machine. */
  private static final long RELEASED_WITHIN_MS = 8000;
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;
  /** Carriers pinned by the callers' virtual threads (JDK 21+, where the callers are virtual threads). */
  private static CallerThreads.Pinning pinning;

  @BeforeAll
  static void start(PostgresTopology pg) {
    Shardwise.Builder builder = Shardwise.configure().credentials("postgres", null).schema("create")
        .entities(Profile.class)
        .property(ShardwiseSettings.RYW_SECRET, "0123456789abcdef0123456789abcdef-test-only");
    for (int i = 0; i < 2; i++) {
      builder.shard("shard" + i, pg.shard(i).primary().jdbcUrl()).replica("shard" + i, pg.shard(i).replica(0).jdbcUrl());
    }
    sessionFactory = builder.buildSessionFactory();
    shards = ShardedSessions.of(sessionFactory);
    pinning = new CallerThreads.Pinning(Duration.ofMillis(20));
  }

  @AfterAll
  static void stop() throws java.io.IOException {
    sessionFactory.close();
    try (CallerThreads.Pinning recorded = pinning) {
      List<String> pinned = recorded.pinned();
      System.out.println("FrozenNodeReleaseTest: callers on " + (CallerThreads.virtual() ? "virtual" : "platform")
          + " threads, " + pinned.size() + " carriers pinned for 20 ms or more");
      assertEquals(List.of(), pinned, "carriers pinned by the callers' virtual threads");
    }
  }

  @AfterEach
  void thawed(PostgresTopology pg) {
    for (int i = 0; i < 2; i++) {
      pg.shard(i).primary().thaw();
      pg.shard(i).replica(0).thaw();
    }
  }

  @Test
  void aFrozenPrimaryReleasesItsCallersAtOnceWhileALongStatementOnALiveOneRunsToItsEnd(PostgresTopology pg)
      throws Exception {
    long live = profile(keyOn(shards, "shard0"), "live");
    long frozen = profile(keyOn(shards, "shard1"), "frozen");
    PostgresNode frozenPrimary = pg.shard(1).primary();
    String frozenNode = "primary " + frozenPrimary.host() + ":" + frozenPrimary.port();
    ExecutorService callers = CallerThreads.callers(3);
    try {
      // one long statement on the live shard, two on the shard about to freeze, all in write transactions
      Future<Long> longOnLive = callers.submit(() -> {
        long started = System.nanoTime();
        shards.forKey(live).inTransaction(s -> s.createNativeQuery("SELECT 1 FROM pg_sleep(5)", Integer.class)
            .getSingleResult());
        return elapsedMs(started);
      });
      List<Future<Released>> onFrozen = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        onFrozen.add(callers.submit(() -> {
          try {
            shards.forKey(frozen).inTransaction(s -> s.createNativeQuery("SELECT 1 FROM pg_sleep(5)", Integer.class)
                .getSingleResult());
            return new Released(System.nanoTime(), null);
          } catch (RuntimeException e) {
            return new Released(System.nanoTime(), e);
          }
        }));
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> sleeping(pg.shard(1).primary()) == 2
          && sleeping(pg.shard(0).primary()) == 1);
      frozenPrimary.freeze();
      long frozenAt = System.nanoTime();

      for (Future<Released> caller : onFrozen) {
        Released released = caller.get(30, TimeUnit.SECONDS);
        long afterFreezeMs = TimeUnit.NANOSECONDS.toMillis(released.atNanos - frozenAt);
        ShardUnavailableException e = assertInstanceOf(ShardUnavailableException.class, released.failure,
            "the caller on the frozen primary failed with ShardUnavailableException");
        assertEquals("shard1", e.shardId());
        assertEquals(frozenNode, e.node());
        assertNull(e.breakerState(), "the server itself was asked: " + e.getMessage());
        assertTrue(e.getMessage().contains("stopped answering"), e.getMessage());
        assertTrue(afterFreezeMs < RELEASED_WITHIN_MS, "released " + afterFreezeMs + " ms after the freeze");
        System.out.println("FrozenNodeReleaseTest: a caller on the frozen primary released " + afterFreezeMs
            + " ms after the freeze: " + e.getMessage());
      }
      // the live server's long statement was never aborted: it ran its 5 s and committed
      long tookMs = longOnLive.get(30, TimeUnit.SECONDS);
      assertTrue(tookMs >= 5000, "the long statement ran " + tookMs + " ms");
      assertEquals(BreakerState.CLOSED, statusOf("shard0").state());
      assertTrue(statusOf("shard1").state() != BreakerState.CLOSED, statusOf("shard1").toString());
    } finally {
      frozenPrimary.thaw();
      callers.shutdownNow();
      assertTrue(callers.awaitTermination(30, TimeUnit.SECONDS));
    }
    // back after the thaw, with no aborted connection handed out again
    await().atMost(Duration.ofSeconds(30)).ignoreException(ShardUnavailableException.class)
        .until(() -> "frozen".equals(shards.forKey(frozen).fromTransaction(s -> s.find(Profile.class, frozen).getName())));
    for (int i = 0; i < 20; i++) {
      shards.forKey(frozen).inTransaction(s -> s.find(Profile.class, frozen).setName("again"));
    }
    assertEquals(BreakerState.CLOSED, statusOf("shard1").state());
    assertNoConnectionOut(sessionFactory);
  }

  @Test
  void aReadInFlightOnAFrozenReplicaIsAnsweredByThePrimary(PostgresTopology pg) throws Exception {
    long user = profile(keyOn(shards, "shard0"), "v1");
    PostgresNode replica = pg.shard(0).replica(0);
    PostgresNode primary = pg.shard(0).primary();
    // without a deadline, and with one: the retry then runs with the time left
    for (ShardRoute route : List.of(shards.forKey(user).readOnly(),
        shards.forKey(user).withDeadline(Duration.ofSeconds(12)).readOnly())) {
      pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
      await().atMost(Duration.ofSeconds(30)).until(() -> {
        shards.checkReplicasNow();
        return shards.replicaStatus().stream().allMatch(ReplicaStatus::healthy);
      });
      AtomicInteger attempts = new AtomicInteger();
      ExecutorService freezer = CallerThreads.callers(1);
      Future<Long> frozenAt;
      try {
        // freezes the replica once the statement is running on it, so the statement is in flight
        // there; freezing before it is sent would let a later checkout go to the primary at once
        frozenAt = freezer.submit(() -> {
          await().atMost(Duration.ofSeconds(30)).until(() -> sleeping(replica, "pg_sleep(3)") == 1);
          replica.freeze();
          return System.nanoTime();
        });
        int[] served = route.fromSession(s -> {
          if (attempts.incrementAndGet() == 1) {
            assertEquals(replica.port(), port(s), "the first attempt reads from the replica");
            s.createNativeQuery("SELECT 1 FROM pg_sleep(3)", Integer.class).getSingleResult(); // never answered
          }
          Object[] server = (Object[]) s.createNativeQuery("SELECT inet_server_port(), pg_is_in_recovery()",
              Object[].class).getSingleResult();
          assertEquals("v1", s.find(Profile.class, user).getName());
          return new int[] {((Number) server[0]).intValue(), (Boolean) server[1] ? 1 : 0};
        });
        long afterFreezeMs = elapsedMs(frozenAt.get(30, TimeUnit.SECONDS));
        assertEquals(2, attempts.get(), "the unit of work ran once more");
        assertEquals(primary.port(), served[0], "the retry was served by the primary");
        assertEquals(0, served[1], "the primary is not in recovery");
        assertTrue(afterFreezeMs < RELEASED_WITHIN_MS, "answered " + afterFreezeMs + " ms after the freeze");
        System.out.println("FrozenNodeReleaseTest: a read in flight on the frozen replica (deadline " + route.deadline()
            + ") answered by the primary " + afterFreezeMs + " ms after the freeze");
        ReplicaStatus status = shards.replicaStatus().stream().filter(r -> r.shardId().equals("shard0")).findFirst()
            .orElseThrow();
        assertFalse(status.healthy(), status.toString());
      } finally {
        freezer.shutdownNow();
      }
      replica.thaw();
    }
  }

  private record Released(long atNanos, RuntimeException failure) {}

  private static long profile(long user, String name) {
    shards.forKey(user).inTransaction(s -> s.merge(new Profile(user, name)));
    return user;
  }

  private static int port(org.hibernate.Session s) {
    return s.createNativeQuery("SELECT inet_server_port()", Integer.class).getSingleResult();
  }

  /** Backends of {@code node} running a pg_sleep(5), as an unpooled admin connection sees them. */
  private static int sleeping(PostgresNode node) throws Exception {
    return sleeping(node, "pg_sleep(5)");
  }

  private static int sleeping(PostgresNode node, String call) throws Exception {
    try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE state = 'active'"
            + " AND query LIKE '%" + call + "%' AND pid <> pg_backend_pid()")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static NodeStatus statusOf(String shardId) {
    return shards.nodeStatus().stream().filter(n -> n.shardId().equals(shardId) && n.node().startsWith("primary "))
        .findFirst().orElseThrow();
  }
}
