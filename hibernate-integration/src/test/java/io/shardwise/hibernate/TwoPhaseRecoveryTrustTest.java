package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.transaction.internal.CoordinatorCrash;
import io.shardwise.hibernate.transaction.internal.CrossShardService;
import io.shardwise.hibernate.transaction.internal.FaultInjector.Point;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/**
 * Recovery reads gids from {@code pg_prepared_xacts}, which any role with a login on a shard can
 * fill. Planted gids (a quote that would splice SQL into {@code COMMIT PREPARED '...'}, near misses
 * of Shardwise's format, a perfect imitation prepared by another role) are left prepared, logged by
 * name, and nothing they carry is executed; Shardwise's own in-doubt transaction beside them is
 * still resolved. A gid of Shardwise's whose decider is no longer the server history that assigned its
 * transaction id (as after a failover) is not resolved either: the id may name another transaction.
 */
@ShardedPostgres(shards = 2)
class TwoPhaseRecoveryTrustTest {
  private static final String COORDINATOR = "0123456789abcdef";

  @Test
  void plantedGidsAreLeftAloneAndNamed_andNothingInThemRuns(PostgresTopology pg) throws Exception {
    PostgresNode target = pg.shard(1).primary();
    try (Connection admin = target.dataSource().getConnection(); Statement s = admin.createStatement()) {
      s.execute("DROP ROLE IF EXISTS intruder");
      s.execute("CREATE ROLE intruder LOGIN");
    }
    long committedOnShard0 = committedTransactionId(pg.shard(0).primary());
    String incarnation = incarnation(pg.shard(0).primary());
    String exact = "sw:" + COORDINATOR + ":shard0:" + incarnation + ":" + committedOnShard0;
    // prepared as the role Shardwise connects as (postgres here), but not of Shardwise's format
    List<String> asShardwisesRole = List.of(
        "sw:x",
        "sw:x'; CREATE TABLE pwned (x int); --",
        "sw:" + COORDINATOR + ":shard0:" + incarnation + ":00" + committedOnShard0,
        "sw:" + COORDINATOR.toUpperCase() + ":shard0:" + incarnation + ":" + committedOnShard0,
        "sw:" + COORDINATOR + ":shard9:" + incarnation + ":" + committedOnShard0,
        "sw:" + COORDINATOR + ":shard0:" + committedOnShard0,
        exact + "\n");
    // of Shardwise's exact format, naming a committed transaction, but prepared by another role
    List<String> asIntruder = List.of(exact);
    // Shardwise's own format and role, but the decider's server history differs from the one named
    String otherHistory = "sw:" + COORDINATOR + ":shard0:" + (incarnation.equals("000000000000") ? "000000000001"
        : "000000000000") + ":" + committedOnShard0;
    List<String> planted = new ArrayList<>(asShardwisesRole);
    planted.addAll(asIntruder);

    List<LogRecord> warnings = new ArrayList<>();
    Logger txLogger = Logger.getLogger("io.shardwise.tx");
    Handler capture = new Handler() {
      @Override
      public synchronized void publish(LogRecord record) {
        if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
          warnings.add(record);
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    txLogger.addHandler(capture);
    try (SessionFactory sf = BankFixture.openWithAccounts(pg, 6)) {
      for (String gid : asShardwisesRole) {
        prepare(target.jdbcUrl(), "postgres", gid);
      }
      for (String gid : asIntruder) {
        prepare(target.jdbcUrl(), "intruder", gid);
      }
      prepare(target.jdbcUrl(), "postgres", otherHistory);
      // and one in-doubt transaction of Shardwise's own, which recovery must still roll back
      ShardedSessions shards = ShardedSessions.of(sf);
      CrossShardService service = BankFixture.service(sf);
      service.faultInjector((point, gid, shard) -> {
        if (point == Point.AFTER_PREPARE) {
          throw new CoordinatorCrash("dies with " + gid + " prepared");
        }
      });
      long a = BankFixture.key(shards, "shard0", 1);
      long b = BankFixture.key(shards, "shard1", 1);
      assertThrows(CoordinatorCrash.class, () -> BankFixture.transfer(shards, "t1", a, b, 10));
      service.faultInjector(null);

      var result = service.twoPhase().recover(0, 0);

      assertEquals(1, result.rolledBack(), "Shardwise's own in-doubt transaction: " + result);
      assertEquals(0, result.committed(), result.toString());
      assertEquals(1, result.skipped(), "the gid from another server history: " + result);
      List<String> stillPrepared = new ArrayList<>(planted);
      stillPrepared.add(otherHistory);
      assertEquals(stillPrepared.stream().sorted().toList(), preparedGids(target), "every planted gid is still prepared");
      assertTrue(warnings.stream().anyMatch(r -> r.getLevel() == Level.SEVERE && r.getMessage().contains(otherHistory)
          && r.getMessage().contains("will not guess")), "an error names " + otherHistory);
      assertFalse(tableExists(target, "pwned"), "nothing spliced from a gid ran");
      assertEquals(Map.of(), BankFixture.legsByTransfer(pg));
      for (String gid : planted) {
        String shown = printable(gid);
        assertTrue(result.untrusted().contains("shard1: " + shown), shown + " in " + result.untrusted());
        assertTrue(warnings.stream().anyMatch(r -> r.getMessage().contains(shown) && r.getMessage().contains("alone")),
            "a warning names " + shown);
      }
      assertTrue(warnings.stream().noneMatch(r -> r.getMessage().contains("\n")), "log lines carry no raw newline");

      int warned = warnings.size();
      assertEquals(planted.size(), service.twoPhase().recover(0, 0).untrusted().size());
      assertEquals(warned + 1, warnings.size(), "each planted gid is logged once, not on every pass; the gid from"
          + " another history again, as an error for an operator");
    } finally {
      txLogger.removeHandler(capture);
      try (Connection admin = target.dataSource().getConnection(); Statement s = admin.createStatement()) {
        for (String gid : planted) {
          s.execute("ROLLBACK PREPARED '" + gid.replace("'", "''") + "'");
        }
        s.execute("ROLLBACK PREPARED '" + otherHistory + "'");
        s.execute("DROP ROLE intruder");
      }
    }
    assertEquals(List.of(), BankFixture.preparedTransactions(pg));
  }

  /** The printable form recovery uses: quoted, controls and non-ASCII escaped. */
  private static String printable(String gid) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : gid.toCharArray()) {
      b.append(c >= 0x20 && c < 0x7f && c != '"' && c != '\\' ? String.valueOf(c) : String.format("\\u%04x", (int) c));
    }
    return b.append('"').toString();
  }

  private static void prepare(String url, String role, String gid) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, role, null)) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("SELECT pg_current_xact_id()");
        s.execute("PREPARE TRANSACTION '" + gid.replace("'", "''") + "'");
      }
      c.setAutoCommit(true);
    }
  }

  private static long committedTransactionId(PostgresNode node) throws SQLException {
    try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT pg_current_xact_id()")) {
      rs.next();
      return Long.parseLong(rs.getString(1));
    }
  }

  private static String incarnation(PostgresNode node) throws SQLException {
    try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT left(md5((SELECT system_identifier FROM pg_control_system())::text"
            + " || ':' || left(pg_walfile_name(pg_current_wal_lsn()), 8)), 12)")) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static List<String> preparedGids(PostgresNode node) throws SQLException {
    List<String> gids = new ArrayList<>();
    try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT gid FROM pg_prepared_xacts ORDER BY gid")) {
      while (rs.next()) {
        gids.add(rs.getString(1));
      }
    }
    return gids.stream().sorted().toList();
  }

  private static boolean tableExists(PostgresNode node, String table) throws SQLException {
    try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT to_regclass('public." + table + "') IS NOT NULL")) {
      rs.next();
      return rs.getBoolean(1);
    }
  }
}
