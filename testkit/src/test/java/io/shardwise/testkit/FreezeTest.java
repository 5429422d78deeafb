package io.shardwise.testkit;

import static io.shardwise.testkit.StreamingReplicationTest.execute;
import static io.shardwise.testkit.StreamingReplicationTest.name;
import static io.shardwise.testkit.StreamingReplicationTest.single;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.testkit.junit.Node;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A frozen node is a black hole: connections reach its port, nothing answers, until it is thawed. */
@ShardedPostgres(shards = 1, replicas = 2)
class FreezeTest {
  private static final Duration CATCH_UP = Duration.ofSeconds(30);

  @BeforeAll
  static void createTable(PostgresTopology pg) throws SQLException {
    execute(pg.shard(0).primary().dataSource(), "CREATE TABLE profile (id int PRIMARY KEY, name text NOT NULL)");
    pg.awaitReplicasCaughtUp(CATCH_UP);
  }

  @AfterEach
  void thawEverything(PostgresTopology pg) throws SQLException {
    pg.nodes().forEach(PostgresNode::thaw);
    execute(pg.shard(0).primary().dataSource(), "TRUNCATE profile");
    pg.awaitReplicasCaughtUp(CATCH_UP);
  }

  @Test
  void aFrozenPrimaryTakesConnectionsButNeverAnswersUntilThawed(@Node(shard = 0) PostgresNode primary)
      throws SQLException, IOException {
    try (Connection openBefore = connect(primary, 1)) {
      primary.freeze();

      assertTrue(primary.isFrozen());
      assertTrue(primary.isRunning(), "a frozen server is paused, not gone");
      SQLException e = assertThrows(SQLException.class, () -> {
        try (Statement s = openBefore.createStatement()) {
          s.executeQuery("SELECT 1");
        }
      });
      assertTrue(causedBy(e, SocketTimeoutException.class), "the 1 s socketTimeout ends the wait: " + e);
      assertNoAnswerOnOpenSocket(primary);

      primary.thaw();
    }

    assertFalse(primary.isFrozen());
    try (Connection again = connect(primary, 5); Statement s = again.createStatement();
        var rs = s.executeQuery("SELECT inet_server_port()")) {
      rs.next();
      assertEquals(primary.port(), rs.getInt(1), "the same server answers again");
    }
  }

  @Test
  void aFrozenReplicaReplaysNothingAndCatchesUpAfterThaw(@Node(shard = 0) PostgresNode primary,
      @Node(shard = 0, replica = 0) PostgresNode frozen, @Node(shard = 0, replica = 1) PostgresNode live)
      throws SQLException {
    Lsn before = primary.currentLsn();
    await().atMost(CATCH_UP).until(() -> replayReportedToPrimary(primary, frozen).isAtOrAfter(before));

    frozen.freeze();
    execute(primary.dataSource(), "INSERT INTO profile VALUES (1, 'while frozen')");
    Lsn commit = primary.currentLsn();
    live.awaitReplay(commit, CATCH_UP);

    assertEquals("while frozen", name(live.dataSource(), 1), "the sibling replica has it");
    assertFalse(replayReportedToPrimary(primary, frozen).isAtOrAfter(commit),
        "the frozen replica has not replayed the commit its sibling already shows");

    frozen.thaw();
    frozen.awaitReplay(commit, CATCH_UP);
    assertEquals("while frozen", name(frozen.dataSource(), 1));
  }

  @Test
  void startThawsAFrozenNode(@Node(shard = 0, replica = 1) PostgresNode replica) throws SQLException {
    replica.freeze();
    replica.start();
    assertFalse(replica.isFrozen());
    assertEquals("t", single(replica.dataSource(), "SELECT pg_is_in_recovery()"));
  }

  @Test
  void onlyARunningNodeCanBeFrozen(@Node(shard = 0, replica = 1) PostgresNode replica) {
    replica.stop();
    try {
      IllegalStateException e = assertThrows(IllegalStateException.class, replica::freeze);
      assertTrue(e.getMessage().contains(replica.name()) && e.getMessage().contains("not running"), e.getMessage());
      assertFalse(replica.isFrozen());
    } finally {
      replica.start();
    }
  }

  /** The kernel completes the TCP handshake (the listen backlog), but the postmaster never reads. */
  private static void assertNoAnswerOnOpenSocket(PostgresNode node) throws IOException {
    try (Socket socket = new Socket(node.host(), node.port())) {
      socket.setSoTimeout(1000);
      OutputStream out = socket.getOutputStream();
      out.write(new byte[] {0, 0, 0, 8, 0x04, (byte) 0xd2, 0x16, 0x2f}); // SSLRequest: a live server answers 'N' or 'S'
      out.flush();
      InputStream in = socket.getInputStream();
      assertThrows(SocketTimeoutException.class, in::read, "a frozen server sends nothing");
    }
  }

  private static Lsn replayReportedToPrimary(PostgresNode primary, PostgresNode replica) throws SQLException {
    String lsn = single(primary.dataSource(), "SELECT coalesce(replay_lsn, '0/0')::text FROM pg_stat_replication"
        + " WHERE application_name = '" + replica.name().replace('-', '_') + "'");
    if (lsn == null) {
      throw new AssertionError(replica.name() + " is not connected to " + primary.name());
    }
    return Lsn.parse(lsn);
  }

  private static Connection connect(PostgresNode node, int socketTimeoutSeconds) throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", node.user());
    props.setProperty("connectTimeout", "5");
    props.setProperty("socketTimeout", Integer.toString(socketTimeoutSeconds));
    return DriverManager.getConnection(node.jdbcUrl(), props);
  }

  private static boolean causedBy(Throwable t, Class<? extends Throwable> type) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (type.isInstance(c)) {
        return true;
      }
    }
    return false;
  }
}
