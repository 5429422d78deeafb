package io.shardwise.hibernate.readwrite.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.readwrite.ConsistencyScope;
import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.hibernate.rw.Profile;
import io.shardwise.testkit.Lsn;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.time.Duration;
import java.util.List;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/**
 * A replica rebuilt behind the address Shardwise knows it by, from a copy that has not replayed
 * what its predecessor had: its replay position goes back, and the monitor must believe it. The
 * address is a TCP forwarder switched from a caught-up replica to one that stopped applying
 * commits before the scope's write.
 */
@ShardedPostgres(shards = 1, replicas = 2)
class RebuiltReplicaTest {
  private static final String SECRET = "0123456789abcdef0123456789abcdef-test-only";
  private static final Duration PATIENCE = Duration.ofSeconds(30);

  @Test
  void aScopeIsNotServedByARebuiltReplicaThatLacksItsWrite(PostgresTopology pg) throws Exception {
    PostgresNode primary = pg.shard(0).primary();
    PostgresNode caughtUp = pg.shard(0).replica(0);
    PostgresNode olderCopy = pg.shard(0).replica(1);
    try (TcpForwarder replicaAddress = new TcpForwarder(caughtUp.port());
        SessionFactory sf = Shardwise.configure().credentials("postgres", null).entities(Profile.class)
            .schema("create").property(ShardwiseSettings.RYW_SECRET, SECRET)
            .property(ShardwiseSettings.REPLICA_MONITOR_INTERVAL, "60000") // checks run when the test says
            .shard("s0", primary.jdbcUrl())
            .replica("s0", "jdbc:postgresql://127.0.0.1:" + replicaAddress.port() + "/postgres")
            .buildSessionFactory()) {
      ShardedSessions shards = ShardedSessions.of(sf);
      long user = 7;
      shards.forKey(user).inTransaction(s -> s.persist(new Profile(user, "v0")));
      pg.shard(0).awaitReplicasCaughtUp(PATIENCE);
      olderCopy.setApplyDelay(Duration.ofHours(1)); // from now on it keeps an older state

      ConsistencyScope scope = shards.consistency().scope("user:" + user);
      shards.forKey(user).within(scope).inTransaction(s -> s.find(Profile.class, user).setName("v1"));
      long pin = shards.consistency().pins(scope).get("s0").minLsn();
      caughtUp.awaitReplay(new Lsn(pin), PATIENCE);
      shards.checkReplicasNow();
      assertEquals(List.of("v1", true), nameAndRecovery(shards, scope, user), "the caught-up replica serves the scope");

      replicaAddress.switchTo(olderCopy.port());
      await().atMost(PATIENCE).until(() -> {
        shards.checkReplicasNow(); // the first check after the switch finds its connection cut
        return !shards.replicaStatus().get(0).reason().startsWith("unreachable");
      });
      assertEquals(List.of("v1", false), nameAndRecovery(shards, scope, user),
          "the scope's read is served by the primary, not by the copy that lacks its write");
      ReplicaStatus status = shards.replicaStatus().get(0);
      assertTrue(Lsn.parse(status.replayLsn()).value() < pin,
          "the monitor believes the lower replay position of the rebuilt replica: " + status + ", pin " + new Lsn(pin));
    }
  }

  /** The profile's name and whether the server that served it is a replica, read in one transaction (one connection). */
  private static List<Object> nameAndRecovery(ShardedSessions shards, ConsistencyScope scope, long user) {
    return shards.forKey(user).within(scope).readOnly().fromTransaction(s -> List.of(
        s.find(Profile.class, user).getName(),
        s.createNativeQuery("select pg_is_in_recovery()", Boolean.class).getSingleResult()));
  }
}
