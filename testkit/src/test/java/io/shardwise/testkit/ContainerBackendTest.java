package io.shardwise.testkit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.shardwise.testkit.internal.ContainerSupport;
import java.sql.SQLException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The Testcontainers backend, where a Docker engine is reachable. Elsewhere (the build machines
 * have none) the test is skipped, and the skip says why.
 */
class ContainerBackendTest {

  @Test
  void primaryStreamsToReplicaInContainers() throws SQLException {
    String reason = ContainerSupport.unavailableReason();
    if (reason != null) {
      System.err.println("[ContainerBackendTest] skipped: " + reason);
    }
    assumeTrue(reason == null, () -> "Testcontainers backend not exercised: " + reason);

    try (PostgresTopology pg = PostgresTopology.builder().backend(PostgresTopology.Backend.CONTAINERS)
        .shards(1).replicasPerShard(1).start()) {
      PostgresNode primary = pg.shard(0).primary();
      PostgresNode replica = pg.shard(0).replica(0);
      StreamingReplicationTest.execute(primary.dataSource(), "CREATE TABLE t (v text)");
      StreamingReplicationTest.execute(primary.dataSource(), "INSERT INTO t VALUES ('in a container')");
      replica.awaitReplay(primary.currentLsn(), Duration.ofSeconds(30));
      assertEquals("in a container", StreamingReplicationTest.single(replica.dataSource(), "SELECT v FROM t"));

      replica.kill();
      replica.start();
      await().atMost(Duration.ofSeconds(60)).until(replica::isRunning);
    }
  }
}
