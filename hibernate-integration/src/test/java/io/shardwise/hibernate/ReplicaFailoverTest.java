package io.shardwise.hibernate;

import static io.shardwise.hibernate.ServedRead.nodeOnPort;
import static io.shardwise.hibernate.ServedRead.nodes;
import static io.shardwise.hibernate.ServedRead.serverPort;
import static io.shardwise.hibernate.ServedRead.written;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Replica health that survives its primary, on one shard with two streaming replicas: with the
 * primary frozen or stopped for longer than the lag limit, read-only sessions go on reading from
 * the replicas (checked by server identity and value); a read in flight on a replica that freezes
 * is retried on the other replica; a read-your-writes pin is never served by a replica that has not
 * replayed it, primary down or not.
 */
@ShardedPostgres(shards = 1, replicas = 2)
class ReplicaFailoverTest {
  private static final long MAX_LAG_MS = 1500;
  private static final long REPLICA_SOCKET_MS = 2000;
  private static final String SHARD = "shard0";
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;
  private static final AtomicLong users = new AtomicLong(1);

  @BeforeAll
  static void start(PostgresTopology pg) {
    PostgresShard shard = pg.shard(0);
    sessionFactory = Shardwise.configure().credentials("postgres", null).schema("create")
        .entities(Profile.class)
        .shard(SHARD, shard.primary().jdbcUrl())
        .replica(SHARD, shard.replica(0).jdbcUrl())
        .replica(SHARD, shard.replica(1).jdbcUrl())
        .property(ShardwiseSettings.RYW_SECRET, "0123456789abcdef0123456789abcdef-test-only")
        .property(ShardwiseSettings.CONNECTION_TIMEOUT, "1000")
        .property(ShardwiseSettings.REPLICA_MAX_LAG_MS, Long.toString(MAX_LAG_MS))
        .property(ShardwiseSettings.REPLICA_PREFIX + ShardwiseSettings.STATEMENT_TIMEOUT_MS, "1000")
        .property(ShardwiseSettings.REPLICA_PREFIX + ShardwiseSettings.SOCKET_TIMEOUT_MS,
            Long.toString(REPLICA_SOCKET_MS))
        .buildSessionFactory();
    shards = ShardedSessions.of(sessionFactory);
  }

  @AfterAll
  static void stop() {
    sessionFactory.close();
  }

  /** Every node serves again, without apply delay, and Shardwise writes to the primary, before the next test. */
  @AfterEach
  void everyNodeBack(PostgresTopology pg) {
    for (PostgresNode node : nodes(pg)) {
      if (node.isFrozen()) {
        node.thaw();
      }
      if (!node.isRunning()) {
        node.start();
      }
    }
    pg.shard(0).replicas().forEach(PostgresNode::clearApplyDelay);
    long probe = users.getAndIncrement();
    await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
        .until(() -> shards.forKey(probe).fromTransaction(s -> s.merge(new Profile(probe, "probe"))) != null);
  }

  @Test
  void aFrozenOrStoppedPrimaryKeepsItsReplicasServingReads(PostgresTopology pg) {
    PostgresNode primary = pg.shard(0).primary();
    long user = written(pg, shards, users.getAndIncrement(), "v1");
    for (Runnable outage : new Runnable[] {primary::freeze, primary::kill}) {
      outage.run();
      // twice the lag limit: a monitor that measured replicas against the lost primary would eject them
      long until = System.nanoTime() + Duration.ofMillis(2 * MAX_LAG_MS + 500).toNanos();
      int reads = 0;
      while (System.nanoTime() < until) {
        ServedRead served = shards.forKey(user).readOnly().fromSession(s -> ServedRead.of(s, user));
        assertEquals("v1", served.value());
        assertTrue(served.inRecovery(), "served by a replica, not " + served.port());
        assertTrue(replicaPorts(pg).contains(served.port()), "served by one of the replicas: " + served.port());
        reads++;
      }
      assertTrue(reads > 0);
      assertTrue(shards.replicaStatus().stream().allMatch(ReplicaStatus::healthy), shards.replicaStatus().toString());
      if (primary.isFrozen()) {
        primary.thaw();
      } else {
        primary.start();
      }
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions()
          .until(() -> shards.forKey(user).fromTransaction(s -> s.find(Profile.class, user)) != null);
    }
  }

  @Test
  void aReadInFlightOnAFrozenReplicaIsRetriedOnTheOtherReplica(PostgresTopology pg) {
    long user = written(pg, shards, users.getAndIncrement(), "v1");
    AtomicInteger attempts = new AtomicInteger();
    long[] frozenAt = new long[1];
    int[] firstPort = new int[1];
    ServedRead served = shards.forKey(user).readOnly().fromTransaction(s -> {
      int port = serverPort(s);
      if (attempts.incrementAndGet() == 1) {
        firstPort[0] = port;
        nodeOnPort(pg, port).freeze();
        frozenAt[0] = System.nanoTime();
      }
      return ServedRead.of(s, user);
    });
    long tookMs = (System.nanoTime() - frozenAt[0]) / 1_000_000;
    assertEquals(2, attempts.get(), "the unit of work ran once more");
    assertEquals("v1", served.value());
    assertTrue(served.inRecovery(), "the retry was served by a replica");
    assertNotEquals(firstPort[0], served.port(), "the retry avoided the frozen replica");
    assertTrue(replicaPorts(pg).contains(served.port()));
    assertTrue(tookMs < REPLICA_SOCKET_MS + 1000, "answered " + tookMs + " ms after the freeze");
  }

  @Test
  void aPinnedReadIsNeverServedByAReplicaBehindItsPinEvenWithThePrimaryDown(PostgresTopology pg) {
    long user = written(pg, shards, users.getAndIncrement(), "v1");
    ConsistencyScope scope = shards.consistency().scope("user:" + user);
    pg.shard(0).replicas().forEach(r -> r.setApplyDelay(Duration.ofSeconds(30)));
    shards.forKey(user).within(scope).inTransaction(s -> s.find(Profile.class, user).setName("v2"));
    PostgresNode primary = pg.shard(0).primary();
    primary.freeze();

    // outside the scope the replicas serve (the old value: they have not applied v2)
    ServedRead unpinned = shards.forKey(user).readOnly().fromSession(s -> ServedRead.of(s, user));
    assertTrue(unpinned.inRecovery());
    assertEquals("v1", unpinned.value());
    // inside it, only the primary may serve, and it is frozen: a failure, never "v1"
    ShardUnavailableException e = assertThrows(ShardUnavailableException.class,
        () -> shards.forKey(user).within(scope).readOnly().fromSession(s -> ServedRead.of(s, user)));
    assertTrue(e.node().startsWith("primary "), e.getMessage());

    primary.thaw();
    ServedRead pinned = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
        .until(() -> shards.forKey(user).within(scope).readOnly().fromSession(s -> ServedRead.of(s, user)), r -> true);
    assertEquals("v2", pinned.value());
    assertEquals(primary.port(), pinned.port(), "the pinned read went to the primary");
  }

  private static Set<Integer> replicaPorts(PostgresTopology pg) {
    return Set.of(pg.shard(0).replica(0).port(), pg.shard(0).replica(1).port());
  }
}
