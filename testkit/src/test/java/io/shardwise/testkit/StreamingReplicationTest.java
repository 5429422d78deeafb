package io.shardwise.testkit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.testkit.junit.Node;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

@ShardedPostgres(shards = 2, replicas = 1)
class StreamingReplicationTest {
  private static final Duration CATCH_UP = Duration.ofSeconds(30);

  @BeforeAll
  static void createTable(PostgresTopology pg) throws SQLException {
    for (PostgresShard shard : pg.shards()) {
      execute(shard.primary().dataSource(), "CREATE TABLE profile (id int PRIMARY KEY, name text NOT NULL)");
    }
    pg.awaitReplicasCaughtUp(CATCH_UP);
  }

  @AfterEach
  void restoreTopology(PostgresTopology pg) throws SQLException {
    for (PostgresNode node : pg.nodes()) {
      node.start();
    }
    for (PostgresShard shard : pg.shards()) {
      for (PostgresNode replica : shard.replicas()) {
        replica.resumeReplay();
        replica.clearApplyDelay();
      }
      execute(shard.primary().dataSource(), "TRUNCATE profile");
    }
    pg.awaitReplicasCaughtUp(CATCH_UP);
  }

  @Test
  void rowCommittedOnPrimaryAppearsOnItsReplicaOnly(PostgresTopology pg,
      @Node(shard = 0) DataSource primary0, @Node(shard = 0, replica = 0) DataSource replica0,
      @Node(shard = 1, replica = 0) DataSource replica1) throws SQLException {
    execute(primary0, "INSERT INTO profile VALUES (1, 'Ada')");

    await().atMost(CATCH_UP).until(() -> "Ada".equals(name(replica0, 1)));
    pg.shard(1).awaitReplicasCaughtUp(CATCH_UP);
    assertNull(name(replica1, 1), "shard 1 streams from its own primary, not from shard 0");
  }

  @Test
  void replicaRejectsWrites(@Node(shard = 0, replica = 0) DataSource replica) {
    SQLException e = assertThrows(SQLException.class, () -> execute(replica, "INSERT INTO profile VALUES (2, 'x')"));
    assertEquals("25006", e.getSQLState(), "read_only_sql_transaction: " + e.getMessage());
  }

  @Test
  void applyDelayShowsTheOldStateFirstAndTheNewStateAfter(@Node(shard = 0) PostgresNode primary,
      @Node(shard = 0, replica = 0) PostgresNode replica) throws SQLException {
    execute(primary.dataSource(), "INSERT INTO profile VALUES (1, 'old name')");
    replica.awaitReplay(primary.currentLsn(), CATCH_UP);

    replica.setApplyDelay(Duration.ofMillis(500));
    execute(primary.dataSource(), "UPDATE profile SET name = 'new name' WHERE id = 1");
    Lsn commit = primary.currentLsn();

    assertEquals("old name", name(replica.dataSource(), 1), "a replica 500 ms behind must still show the old row");
    assertFalse(replica.replayLsn().isAtOrAfter(commit), "the commit must not be replayed yet");

    replica.awaitReplay(commit, CATCH_UP);
    assertEquals("new name", name(replica.dataSource(), 1));
  }

  @Test
  void pausedReplayReceivesButDoesNotApplyUntilResumed(@Node(shard = 1) PostgresNode primary,
      @Node(shard = 1, replica = 0) PostgresNode replica) throws SQLException {
    replica.pauseReplay();
    execute(primary.dataSource(), "INSERT INTO profile VALUES (7, 'while paused')");
    Lsn commit = primary.currentLsn();
    await().atMost(CATCH_UP).until(() -> Lsn.parse(single(replica.dataSource(),
        "SELECT pg_last_wal_receive_lsn()::text")).isAtOrAfter(commit));

    assertNull(name(replica.dataSource(), 7), "received but not applied while paused");
    assertFalse(replica.replayLsn().isAtOrAfter(commit));

    replica.resumeReplay();
    replica.awaitReplay(commit, CATCH_UP);
    assertEquals("while paused", name(replica.dataSource(), 7));
  }

  @Test
  void killedReplicaRestartsAndCatchesUp(@Node(shard = 0) PostgresNode primary,
      @Node(shard = 0, replica = 0) PostgresNode replica) throws SQLException {
    int port = replica.port();
    replica.kill();
    assertFalse(replica.isRunning());
    assertThrows(SQLException.class, () -> name(replica.dataSource(), 1));

    execute(primary.dataSource(), "INSERT INTO profile VALUES (3, 'written while the replica was down')");
    replica.start();

    assertEquals(port, replica.port(), "a restarted instance keeps its port");
    replica.awaitReplay(primary.currentLsn(), CATCH_UP);
    assertEquals("written while the replica was down", name(replica.dataSource(), 3));
  }

  @Test
  void killedPrimaryRecoversCommittedRowsAndReplicationResumes(@Node(shard = 1) PostgresNode primary,
      @Node(shard = 1, replica = 0) PostgresNode replica) throws SQLException {
    execute(primary.dataSource(), "INSERT INTO profile VALUES (4, 'committed before the crash')");
    primary.kill();
    assertFalse(primary.isRunning());
    assertThrows(SQLException.class, () -> execute(primary.dataSource(), "SELECT 1"));
    assertTrue(replica.isRunning(), "the replica survives its primary's crash");

    primary.start();
    assertEquals("committed before the crash", name(primary.dataSource(), 4));
    execute(primary.dataSource(), "INSERT INTO profile VALUES (5, 'after the crash')");
    replica.awaitReplay(primary.currentLsn(), CATCH_UP);
    assertEquals("after the crash", name(replica.dataSource(), 5));
  }

  @Test
  void stoppedPrimaryRestartsWithItsData(@Node(shard = 0) PostgresNode primary) throws SQLException {
    execute(primary.dataSource(), "INSERT INTO profile VALUES (6, 'durable')");
    primary.stop();
    assertFalse(primary.isRunning());
    primary.start();
    assertEquals("durable", name(primary.dataSource(), 6));
  }

  @Test
  void lsnControlsAreRoleSpecific(@Node(shard = 0) PostgresNode primary,
      @Node(shard = 0, replica = 0) PostgresNode replica) {
    assertThrows(UnsupportedOperationException.class, primary::replayLsn);
    assertThrows(UnsupportedOperationException.class, replica::currentLsn);
    assertThrows(UnsupportedOperationException.class, () -> primary.setApplyDelay(Duration.ofSeconds(1)));
  }

  static void execute(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  static String single(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  static String name(DataSource ds, int id) throws SQLException {
    return single(ds, "SELECT name FROM profile WHERE id = " + id);
  }
}
