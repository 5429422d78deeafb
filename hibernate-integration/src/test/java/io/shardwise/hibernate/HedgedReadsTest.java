package io.shardwise.hibernate;

import static io.shardwise.hibernate.ServedRead.nodeOnPort;
import static io.shardwise.hibernate.ServedRead.nodes;
import static io.shardwise.hibernate.ServedRead.serverPort;
import static io.shardwise.hibernate.ServedRead.written;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.readwrite.ConsistencyScope;
import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.hibernate.rw.Profile;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Hedged replica reads on one shard with two streaming replicas, proved by server identity: a unit
 * stuck on a slow or frozen replica is answered by the other node, the loser's statement is
 * cancelled on its server, a healthy shard is hardly ever hedged, and a read-your-writes pin is
 * never answered by a replica behind it.
 *
 * <p>The replicas' connection timeout is 5 s here, so the monitor needs at least 10 s to find a
 * frozen replica silent: an answer within seconds can only come from the hedge.
 */
@ShardedPostgres(shards = 1, replicas = 2)
class HedgedReadsTest {
  private static final String SHARD = "shard0";
  private static final long CEILING_MS = 300;
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;
  private static final AtomicLong users = new AtomicLong(1);
  private static final AtomicLong tags = new AtomicLong(1);

  @BeforeAll
  static void start(PostgresTopology pg) {
    PostgresShard shard = pg.shard(0);
    sessionFactory = Shardwise.configure().credentials("postgres", null).schema("create")
        .entities(Profile.class)
        .shard(SHARD, shard.primary().jdbcUrl())
        .replica(SHARD, shard.replica(0).jdbcUrl())
        .replica(SHARD, shard.replica(1).jdbcUrl())
        .property(ShardwiseSettings.RYW_SECRET, "0123456789abcdef0123456789abcdef-test-only")
        .property(ShardwiseSettings.REPLICA_CONNECTION_TIMEOUT, "5000")
        .property(ShardwiseSettings.READ_HEDGE_ENABLED, "true")
        .property(ShardwiseSettings.READ_HEDGE_FLOOR_MS, "50")
        .property(ShardwiseSettings.READ_HEDGE_CEILING_MS, Long.toString(CEILING_MS))
        .buildSessionFactory();
    shards = ShardedSessions.of(sessionFactory);
  }

  @AfterAll
  static void stop() {
    sessionFactory.close();
  }

  @AfterEach
  void everyNodeBack(PostgresTopology pg) {
    for (PostgresNode node : nodes(pg)) {
      if (node.isFrozen()) {
        node.thaw();
      }
    }
    pg.shard(0).replicas().forEach(PostgresNode::clearApplyDelay);
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(60));
    await().atMost(Duration.ofSeconds(60)).until(() -> {
      shards.checkReplicasNow();
      return shards.replicaStatus().stream().allMatch(ReplicaStatus::healthy)
          && shards.nodeStatus().stream().allMatch(n -> n.state() == BreakerState.CLOSED);
    });
  }

  @Test
  void aUnitStuckOnASlowReplicaIsAnsweredByTheOtherAndTheLoserIsCancelled(PostgresTopology pg) throws Exception {
    long user = written(pg, shards, users.getAndIncrement(), "v1");
    PostgresNode slow = pg.shard(0).replica(0);
    int hedgedOffTheSlowOne = 0;
    for (int read = 0; read < 8 && hedgedOffTheSlowOne < 2; read++) {
      String tag = "hedge-probe-" + tags.getAndIncrement();
      Queue<Integer> attempts = new ConcurrentLinkedQueue<>();
      Queue<Integer> backends = new ConcurrentLinkedQueue<>();
      long started = System.nanoTime();
      ServedRead served = shards.forKey(user).readOnly().fromTransaction(s -> {
        int port = serverPort(s);
        attempts.add(port);
        backends.add(backendPid(s));
        // a live server that is slow for this unit: 30 s on the slow replica, nothing elsewhere
        s.createNativeQuery("SELECT pg_sleep(CASE WHEN inet_server_port() = " + slow.port() + " THEN 30 ELSE 0 END)"
            + " /* " + tag + " */", Object.class).getSingleResult();
        return ServedRead.of(s, user);
      });
      long tookMs = (System.nanoTime() - started) / 1_000_000;
      assertEquals("v1", served.value());
      assertTrue(served.inRecovery(), "served by a replica: " + served);
      if (attempts.peek() != slow.port()) {
        continue;
      }
      hedgedOffTheSlowOne++;
      assertEquals(2, attempts.size(), "hedged once: " + attempts);
      assertEquals(pg.shard(0).replica(1).port(), served.port(), "the other replica answered");
      // the replicas' statement timeout (10 s) would end the slow statement; the hedge answers long before
      assertTrue(tookMs < 8000, "answered after " + tookMs + " ms");
      // the loser's statement does not run on for 30 s: its server was told to cancel it
      await().atMost(Duration.ofSeconds(5)).until(() -> runningWith(slow, tag) == 0);
      // and its connection was kept: the same backend, idle, is still connected (an aborted one would have exited)
      int loserPid = backends.peek();
      await().atMost(Duration.ofSeconds(5)).until(() -> "idle".equals(stateOf(slow, loserPid)));
    }
    assertEquals(2, hedgedOffTheSlowOne, "two reads began on the slow replica");
    NodeStatus slowBreaker = shards.nodeStatus().stream()
        .filter(n -> n.node().endsWith(":" + slow.port())).findFirst().orElseThrow();
    assertEquals(BreakerState.CLOSED, slowBreaker.state(), "a lost race is not a failure of the server: " + slowBreaker);
    assertEquals(0, slowBreaker.consecutiveFailures(), slowBreaker.toString());
  }

  @Test
  void aUnitStuckOnAFrozenReplicaIsAnsweredByTheOtherWithinTheHedgeDelay(PostgresTopology pg) {
    long user = written(pg, shards, users.getAndIncrement(), "v1");
    AtomicInteger attempts = new AtomicInteger();
    AtomicInteger frozenPort = new AtomicInteger();
    AtomicInteger frozenPid = new AtomicInteger();
    AtomicLong frozenAt = new AtomicLong();
    Thread caller = Thread.currentThread();
    ServedRead served = shards.forKey(user).readOnly().fromTransaction(s -> {
      int port = serverPort(s);
      attempts.incrementAndGet();
      if (Thread.currentThread() == caller) { // the first attempt; the hedge runs on a thread of its own
        frozenPort.set(port);
        frozenPid.set(backendPid(s));
        nodeOnPort(pg, port).freeze();
        frozenAt.set(System.nanoTime());
      }
      return ServedRead.of(s, user);
    });
    long tookMs = (System.nanoTime() - frozenAt.get()) / 1_000_000;
    assertEquals(2, attempts.get(), "the unit ran twice");
    assertEquals("v1", served.value());
    assertTrue(served.inRecovery(), "the other replica answered, not the primary: " + served);
    assertNotEquals(frozenPort.get(), served.port());
    // the monitor cannot find the replica silent before 2 × 5 s: only the hedge answers this soon
    assertTrue(tookMs < 5000, "answered " + tookMs + " ms after the freeze");
    // a frozen server cannot acknowledge a cancel: the loser's connection was closed, and after the
    // thaw its backend finds the socket gone and exits
    PostgresNode frozen = nodeOnPort(pg, frozenPort.get());
    frozen.thaw();
    await().atMost(Duration.ofSeconds(30)).until(() -> stateOf(frozen, frozenPid.get()) == null);
  }

  @Test
  void aHealthyShardIsHardlyEverHedged(PostgresTopology pg) {
    long user = written(pg, shards, users.getAndIncrement(), "v1");
    int units = 400;
    AtomicInteger runs = new AtomicInteger();
    for (int i = 0; i < units; i++) {
      ServedRead served = shards.forKey(user).readOnly().fromSession(s -> {
        runs.incrementAndGet();
        return ServedRead.of(s, user);
      });
      assertTrue(served.inRecovery());
    }
    int extra = runs.get() - units;
    assertTrue(extra <= units / 20, extra + " of " + units + " units ran twice (at most 5 % may)");
    // a route can opt out: never hedged, whatever the timing
    AtomicInteger optedOut = new AtomicInteger();
    for (int i = 0; i < 50; i++) {
      shards.forKey(user).readOnly().hedged(false).fromSession(s -> optedOut.incrementAndGet());
    }
    assertEquals(50, optedOut.get());
  }

  @Test
  void aHedgeNeverGoesToAReplicaBehindTheScopesPin(PostgresTopology pg) {
    long user = written(pg, shards, users.getAndIncrement(), "v1");
    PostgresNode caughtUp = pg.shard(0).replica(0);
    PostgresNode behind = pg.shard(0).replica(1);
    behind.setApplyDelay(Duration.ofSeconds(60));
    ConsistencyScope scope = shards.consistency().scope("user:" + user);
    shards.forKey(user).within(scope).inTransaction(s -> s.find(Profile.class, user).setName("v2"));
    // until the monitor has seen the caught-up replica pass the pin, pinned reads go to the primary
    await().atMost(Duration.ofSeconds(30)).until(() -> shards.forKey(user).within(scope).readOnly().hedged(false)
        .fromSession(s -> ServedRead.of(s, user)).port() == caughtUp.port());

    Queue<Integer> attempts = new ConcurrentLinkedQueue<>();
    ServedRead served = shards.forKey(user).within(scope).readOnly().fromTransaction(s -> {
      int port = serverPort(s);
      attempts.add(port);
      s.createNativeQuery("SELECT pg_sleep(CASE WHEN inet_server_port() = " + caughtUp.port() + " THEN 30 ELSE 0 END)",
          Object.class).getSingleResult();
      return ServedRead.of(s, user);
    });
    assertEquals(List.of(caughtUp.port(), pg.shard(0).primary().port()), List.copyOf(attempts),
        "first the caught-up replica, then the primary — never the replica behind the pin");
    assertEquals("v2", served.value());
    assertFalse(served.inRecovery());
    assertFalse(attempts.contains(behind.port()));
  }

  @Test
  void onlyReadOnlyRoutesAreHedged() {
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> shards.forKey(1L).hedged(true));
    assertTrue(e.getMessage().contains("readOnly()"), e.getMessage());
    assertTrue(shards.forKey(1L).readOnly().isHedged(), "the persistence unit's setting");
    assertFalse(shards.forKey(1L).readOnly().hedged(false).isHedged());
    assertFalse(shards.forKey(1L).isHedged());
  }

  private static int backendPid(org.hibernate.Session s) {
    return s.doReturningWork(c -> {
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
        rs.next();
        return rs.getInt(1);
      }
    });
  }

  /** The state of backend {@code pid} of {@code node} in pg_stat_activity ({@code idle}, {@code active}, ...), null when it is gone. */
  private static String stateOf(PostgresNode node, int pid) throws Exception {
    try (Connection c = DriverManager.getConnection(node.jdbcUrl(), "postgres", null);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT state FROM pg_stat_activity WHERE pid = " + pid)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  /** Backends of {@code node} (other than the asking one) whose current statement carries {@code tag}. */
  private static int runningWith(PostgresNode node, String tag) throws Exception {
    try (Connection c = DriverManager.getConnection(node.jdbcUrl(), "postgres", null);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
            + " AND state = 'active' AND query LIKE '%" + tag + " %'")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
