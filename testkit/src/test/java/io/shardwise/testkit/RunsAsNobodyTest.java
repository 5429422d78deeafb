package io.shardwise.testkit;

import static io.shardwise.testkit.StreamingReplicationTest.execute;
import static io.shardwise.testkit.StreamingReplicationTest.name;
import static io.shardwise.testkit.StreamingReplicationTest.single;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A root JVM on a machine without a {@code postgres} account runs the servers as {@code nobody}.
 * Here the account is asked for through the system property, the way a build would set it; the
 * fallback itself is {@code ServerUserTest}'s.
 */
class RunsAsNobodyTest {
  private static final String OS_USER = "shardwise.testkit.osUser";
  private static final int NOBODY_UID = 65534;

  @Test
  void aTopologyRunAsNobodyServesAndReplicates() throws IOException, SQLException {
    assumeTrue((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0,
        "only a root JVM runs PostgreSQL as another account");
    String before = System.getProperty(OS_USER);
    System.setProperty(OS_USER, "nobody");
    PostgresTopology.Builder builder;
    try {
      builder = PostgresTopology.builder().shards(1).replicasPerShard(1);
    } finally {
      restore(before);
    }

    try (PostgresTopology pg = builder.start()) {
      PostgresNode primary = pg.shard(0).primary();
      PostgresNode replica = pg.shard(0).replica(0);
      for (PostgresNode node : pg.nodes()) {
        Path dataDir = Path.of(single(node.dataSource(), "SELECT current_setting('data_directory')"));
        assertEquals(NOBODY_UID, Files.getAttribute(dataDir, "unix:uid"), node + " data directory owner");
        long postmaster = Long.parseLong(Files.readAllLines(dataDir.resolve("postmaster.pid")).get(0).trim());
        assertEquals(NOBODY_UID, realUid(postmaster), node + " postmaster");
        // the backend lives as long as its connection: ask /proc while the connection is open
        try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement();
            ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
          rs.next();
          assertEquals(NOBODY_UID, realUid(rs.getLong(1)), node + " backend serving this session");
        }
      }

      execute(primary.dataSource(), "CREATE TABLE profile (id int PRIMARY KEY, name text NOT NULL)");
      execute(primary.dataSource(), "INSERT INTO profile VALUES (1, 'served by nobody')");
      replica.awaitReplay(primary.currentLsn(), Duration.ofSeconds(30));
      assertEquals("served by nobody", name(replica.dataSource(), 1));
    }
  }

  /** The real uid from {@code /proc/<pid>/status} ("Uid: real effective saved fs"). */
  private static int realUid(long pid) throws IOException {
    String line = Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
        .filter(l -> l.startsWith("Uid:"))
        .findFirst()
        .orElseThrow(() -> new AssertionError("/proc/" + pid + "/status has no Uid line"));
    return Integer.parseInt(line.split("\\s+")[1]);
  }

  private static void restore(String before) {
    if (before == null) {
      System.clearProperty(OS_USER);
    } else {
      System.setProperty(OS_USER, before);
    }
  }
}
