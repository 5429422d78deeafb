package io.shardwise.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class FailedStartTest {

  @Test
  void badConfigurationQuotesTheServerLog() {
    PostgresStartException e = assertThrows(PostgresStartException.class,
        () -> PostgresTopology.builder().setting("shared_buffers", "'lots'").start().close());
    assertTrue(e.getMessage().contains("shard0-primary"), e.getMessage());
    assertTrue(e.getMessage().contains("Last lines of"), e.getMessage());
    assertTrue(e.getMessage().contains("invalid value for parameter \"shared_buffers\""), e.getMessage());
  }

  @Test
  void missingBinariesNameTheDirectoryAndTheFix() {
    Path nowhere = Path.of("/nonexistent/postgresql/17");
    PostgresStartException e = assertThrows(PostgresStartException.class,
        () -> PostgresTopology.builder().postgresHome(nowhere).start().close());
    assertTrue(e.getMessage().contains(nowhere.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("bin/postgres"), e.getMessage());
  }

  @Test
  void takenPortOnRestartQuotesTheBindError() throws IOException {
    try (PostgresTopology pg = PostgresTopology.builder().start()) {
      PostgresNode primary = pg.shard(0).primary();
      int port = primary.port();
      primary.stop();
      try (ServerSocket squatter = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
        PostgresStartException e = assertThrows(PostgresStartException.class, primary::start);
        assertTrue(e.getMessage().contains("port " + port), e.getMessage());
        assertTrue(e.getMessage().contains("could not bind") || e.getMessage().contains("Address already in use"),
            e.getMessage());
        assertFalse(primary.isRunning());
      }
      primary.start();
      assertEquals(port, primary.port(), "after the squatter leaves, the instance gets its own port back");
      assertTrue(canConnect(primary));
    }
  }

  @Test
  void invalidBuilderArgumentsAreRefusedBeforeAnythingStarts() {
    assertThrows(IllegalArgumentException.class, () -> PostgresTopology.builder().shards(0));
    assertThrows(IllegalArgumentException.class, () -> PostgresTopology.builder().replicasPerShard(-1));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> PostgresTopology.builder().setting("fsync; drop", "off"));
    assertTrue(e.getMessage().contains("fsync; drop"), e.getMessage());
  }

  private static boolean canConnect(PostgresNode node) {
    try (Connection c = node.dataSource().getConnection()) {
      return c.isValid(5);
    } catch (SQLException e) {
      return false;
    }
  }
}
