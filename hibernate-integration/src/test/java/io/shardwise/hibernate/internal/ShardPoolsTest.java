package io.shardwise.hibernate.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardState;
import io.shardwise.testkit.junit.Node;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A shard's pool replaced (the map gives the primary a new URL) while other threads still use the old one. */
@ShardedPostgres(shards = 1, scope = ShardedPostgres.Scope.RUN)
class ShardPoolsTest {

  @Test
  void aReplacedPoolServesItsBorrowersToTheEndAndClosesWhenTheyReturn(@Node(shard = 0) String url) throws Exception {
    ShardwiseConfig config = ShardwiseConfig.from(Map.of("shardwise.shards", "s0", "shardwise.shard.s0.url", url,
        "shardwise.user", "postgres", "shardwise.pool.size", "1", "shardwise.pool.connection_timeout_ms", "30000"));
    ShardMap before = config.staticMap();
    // the same server under another URL, as after a move of the primary
    String movedUrl = url + "?ApplicationName=moved";
    ShardMap after = ShardMap.evenlyAssigned(2, List.of(new ShardDescriptor("s0", movedUrl, List.of(), 1,
        ShardState.ACTIVE)), before.bucketCount());
    ExecutorService threads = Executors.newSingleThreadExecutor();
    try (ShardPools pools = new ShardPools(config, config::staticMap)) {
      Connection inTransaction = pools.primary(before, "s0");
      inTransaction.setAutoCommit(false);
      execute(inTransaction, "CREATE TEMP TABLE moving (x int)");
      execute(inTransaction, "INSERT INTO moving VALUES (1)");
      HikariDataSource old = pools.poolOf("s0");

      // a second borrower waits inside the old pool, whose one connection is taken
      Future<String> waiting = threads.submit(() -> {
        try (Connection c = pools.primary(before, "s0")) {
          return text(c, "SELECT current_setting('application_name')");
        }
      });
      await().atMost(Duration.ofSeconds(10)).until(() -> old.getHikariPoolMXBean().getThreadsAwaitingConnection() == 1);

      // the new map replaces the pool: new borrowers get the new one at once
      try (Connection moved = pools.primary(after, "s0")) {
        assertEquals("moved", text(moved, "SELECT current_setting('application_name')"));
      }
      assertNotSame(old, pools.poolOf("s0"));

      // the old pool's borrowers are unharmed: the open transaction goes on and commits
      execute(inTransaction, "INSERT INTO moving VALUES (2)");
      assertEquals("2", text(inTransaction, "SELECT count(*)::text FROM moving"));
      inTransaction.commit();
      assertFalse(old.isClosed(), "closed only when what it lent has come back");
      inTransaction.close();
      // ... and the waiting borrower is served by it, not refused
      assertNotEquals("moved", waiting.get(30, TimeUnit.SECONDS), "served by the old pool");
      await().atMost(Duration.ofSeconds(10)).until(old::isClosed);
    } finally {
      threads.shutdownNow();
    }
  }

  /**
   * A Hibernate session's connection keeps its pool open through the bulkhead's count, which lasts
   * until the session is counted out after its connection came back: a pool replaced meanwhile is
   * not drained by the return alone, and is once the unit of work is counted out.
   */
  @Test
  void aSessionsUnitOfWorkKeepsAReplacedPoolOpenUntilItIsCountedOut(@Node(shard = 0) String url) throws Exception {
    ShardwiseConfig config = ShardwiseConfig.from(Map.of("shardwise.shards", "s0", "shardwise.shard.s0.url", url,
        "shardwise.user", "postgres", "shardwise.pool.size", "2"));
    ShardMap before = config.staticMap();
    String movedUrl = url + "?ApplicationName=moved";
    ShardMap after = ShardMap.evenlyAssigned(2, List.of(new ShardDescriptor("s0", movedUrl, List.of(), 1,
        ShardState.ACTIVE)), before.bucketCount());
    AtomicReference<ShardMap> current = new AtomicReference<>(before);
    try (ShardPools pools = new ShardPools(config, current::get)) {
      Connection session = pools.sessionConnection("s0");
      assertNotEquals("moved", text(session, "SELECT current_setting('application_name')"));
      RetiringPool old = pools.retiringPoolOf("s0");

      current.set(after);
      Connection moved = pools.sessionConnection("s0");
      assertEquals("moved", text(moved, "SELECT current_setting('application_name')"));
      moved.close();
      pools.leave(moved);
      assertNotSame(old, pools.retiringPoolOf("s0"));

      // the session's connection is back in the old pool, but its unit of work is still counted in
      session.close();
      assertEquals(0, old.dataSource().getHikariPoolMXBean().getActiveConnections());
      assertFalse(old.drained(), "a session counted in keeps the pool open");
      pools.leave(session);
      assertTrue(old.drained(), "drained once the session is counted out");
      await().atMost(Duration.ofSeconds(10)).until(() -> old.dataSource().isClosed());
      assertFalse(pools.poolOf("s0").isClosed(), "the successor serves on");
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static String text(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
