package io.shardwise.hibernate;

import static org.awaitility.Awaitility.await;

import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.hibernate.rw.Profile;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresTopology;
import java.time.Duration;
import java.util.List;
import org.hibernate.Session;

/**
 * What served a read of a {@link Profile}, for tests that prove routing by server identity on a
 * topology of one shard (its primary and replicas): the server's port, whether it is a replica,
 * and the value it returned.
 */
record ServedRead(int port, boolean inRecovery, String value) {

  static ServedRead of(Session s, long user) {
    Object[] server = (Object[]) s.createNativeQuery("SELECT inet_server_port(), pg_is_in_recovery()", Object[].class)
        .getSingleResult();
    return new ServedRead(((Number) server[0]).intValue(), (Boolean) server[1], s.find(Profile.class, user).getName());
  }

  static int serverPort(Session s) {
    return s.createNativeQuery("SELECT inet_server_port()", Integer.class).getSingleResult();
  }

  /** {@code user}'s new profile with {@code value}, replayed by every replica and seen by the monitor. */
  static long written(PostgresTopology pg, ShardedSessions shards, long user, String value) {
    shards.forKey(user).inTransaction(s -> s.persist(new Profile(user, value)));
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      shards.checkReplicasNow();
      return shards.replicaStatus().stream().allMatch(ReplicaStatus::healthy);
    });
    return user;
  }

  static PostgresNode nodeOnPort(PostgresTopology pg, int port) {
    return nodes(pg).stream().filter(n -> n.port() == port).findFirst().orElseThrow();
  }

  /** Shard 0's primary and its replicas. */
  static List<PostgresNode> nodes(PostgresTopology pg) {
    List<PostgresNode> all = new java.util.ArrayList<>();
    all.add(pg.shard(0).primary());
    all.addAll(pg.shard(0).replicas());
    return all;
  }
}
