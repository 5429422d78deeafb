package io.shardwise.hibernate.readwrite.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.internal.ShardPools;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardState;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.junit.Node;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The replica monitor and the replica pools when the shard map drops a replica; which primaries the
 * monitor asks, and what.
 */
@ShardedPostgres(shards = 1, replicas = 1)
class ReplicaMonitorTest {

  @Test
  void theMonitorClosesItsConnectionToAReplicaThatLeftTheMap(@Node(shard = 0) String primaryUrl,
      @Node(shard = 0, replica = 0) PostgresNode replica) throws SQLException {
    ShardwiseConfig config = ShardwiseConfig.from(Map.of("shardwise.shards", "s0", "shardwise.shard.s0.url", primaryUrl,
        "shardwise.shard.s0.replicas", replica.jdbcUrl(), "shardwise.user", "postgres"));
    AtomicReference<ShardMap> map = new AtomicReference<>(config.staticMap());
    try (ShardPools pools = new ShardPools(config, map::get);
        ReplicaPools replicas = new ReplicaPools(config, pools::retire, pools.housekeeper(), ShardwiseMetrics.none());
        ReplicaMonitor monitor = new ReplicaMonitor(config, pools, replicas, map::get, ShardwiseMetrics.none())) {
      monitor.checkAll();
      assertEquals(1, monitorConnections(replica), "the monitor watches the replica over its own connection");

      map.set(ShardMap.evenlyAssigned(2, List.of(new ShardDescriptor("s0", primaryUrl, List.of(), 1,
          ShardState.ACTIVE)), config.staticMap().bucketCount()));
      monitor.checkAll();
      // the server ends the backend a moment after the client closes: wait for it, boundedly
      await().atMost(Duration.ofSeconds(10)).until(() -> monitorConnections(replica) == 0);
    }
  }

  @Test
  void aReplicaThatLeftTheMapLendsNoMoreButItsBorrowersFinish(@Node(shard = 0) String primaryUrl,
      @Node(shard = 0, replica = 0) PostgresNode replica) throws SQLException {
    ShardwiseConfig config = ShardwiseConfig.from(Map.of("shardwise.shards", "s0", "shardwise.shard.s0.url", primaryUrl,
        "shardwise.shard.s0.replicas", replica.jdbcUrl(), "shardwise.user", "postgres"));
    AtomicReference<ShardMap> map = new AtomicReference<>(config.staticMap());
    try (ShardPools pools = new ShardPools(config, map::get);
        ReplicaPools replicas = new ReplicaPools(config, pools::retire, pools.housekeeper(), ShardwiseMetrics.none());
        ReplicaMonitor monitor = new ReplicaMonitor(config, pools, replicas, map::get, ShardwiseMetrics.none())) {
      ReplicaNode node = replicas.of(map.get(), "s0").get(0);
      Connection reading = node.borrow();
      reading.setAutoCommit(false);
      assertEquals(1, count(reading, "SELECT 1"));

      map.set(ShardMap.evenlyAssigned(2, List.of(new ShardDescriptor("s0", primaryUrl, List.of(), 1,
          ShardState.ACTIVE)), config.staticMap().bucketCount()));
      monitor.checkAll(); // sees the new map, which retires the replica's pool

      assertTrue(assertThrows(SQLException.class, node::borrow).getMessage().contains("left the shard map"));
      assertEquals(1, count(reading, "SELECT 1"), "the read under way goes on");
      reading.commit();
      reading.close();
      await().atMost(Duration.ofSeconds(10)).until(() -> poolConnections(replica) == 0);
    }
  }

  @Test
  void aPrimaryWithoutReplicasIsAskedOnlyWhileASessionIsOnItAndNeverItsWalPosition(@Node(shard = 0) PostgresNode primary)
      throws SQLException {
    ShardwiseConfig config = ShardwiseConfig.from(Map.of("shardwise.shards", "s0", "shardwise.shard.s0.url",
        primary.jdbcUrl(), "shardwise.user", "postgres"));
    AtomicReference<ShardMap> map = new AtomicReference<>(config.staticMap());
    try (ShardPools pools = new ShardPools(config, map::get);
        ReplicaPools replicas = new ReplicaPools(config, pools::retire, pools.housekeeper(), ShardwiseMetrics.none());
        ReplicaMonitor monitor = new ReplicaMonitor(config, pools, replicas, map::get, ShardwiseMetrics.none())) {
      Connection used = pools.sessionConnection("s0");
      assertEquals(1, count(used, "SELECT 1"));
      used.close();
      pools.leave(used);

      monitor.checkAll();
      monitor.checkAll();
      assertEquals(List.of(), primaryMonitorQueries(primary), "an idle primary without replicas is not asked");

      Connection held = pools.sessionConnection("s0");
      try {
        monitor.checkAll();
        assertEquals(List.of("SELECT 1"), primaryMonitorQueries(primary),
            "a primary with a session on it is asked for an answer, not its WAL position");
      } finally {
        held.close();
        pools.leave(held);
      }
    }
  }

  /** The last query of each of the primary monitor's connections to {@code node}. */
  private static List<String> primaryMonitorQueries(PostgresNode node) throws SQLException {
    try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT query FROM pg_stat_activity"
            + " WHERE application_name = 'shardwise-primary-monitor'")) {
      List<String> queries = new java.util.ArrayList<>();
      while (rs.next()) {
        queries.add(rs.getString(1));
      }
      return queries;
    }
  }

  private static long count(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Client connections to the replica other than this query's own and the monitor's. */
  private static long poolConnections(PostgresNode node) throws SQLException {
    try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend'"
            + " AND pid <> pg_backend_pid() AND application_name <> 'shardwise-replica-monitor'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static long monitorConnections(PostgresNode node) throws SQLException {
    try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity"
            + " WHERE application_name = 'shardwise-replica-monitor'")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
