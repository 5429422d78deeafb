package io.shardwise.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.testkit.internal.DirectoryTreesForTests;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Topologies of one JVM and work directory copy their instances from one initdb: each still gets
 * only its own settings, and nothing a topology does reaches the template or the next topology.
 */
class SharedTemplateTest {
  private Path workDir;

  @BeforeEach
  void freshWorkDirectory() throws IOException {
    workDir = Files.createTempDirectory("shardwise-template-");
  }

  @AfterEach
  void cleanUp() {
    DirectoryTreesForTests.delete(workDir);
  }

  @Test
  void topologiesShareOneInitdbButNeitherSettingsNorData() throws Exception {
    try (PostgresTopology first = PostgresTopology.builder().shards(1).replicasPerShard(1)
        .setting("work_mem", "'7MB'").workDirectory(workDir).start()) {
      sql(first.shard(0).primary(), "CREATE TABLE left_behind (id int); CREATE ROLE left_behind_role");
      assertEquals("7MB", show(first.shard(0).primary(), "work_mem"));
      assertEquals("7MB", show(first.shard(0).replica(0), "work_mem"));
    }
    try (PostgresTopology second = PostgresTopology.builder().shards(2).workDirectory(workDir).start()) {
      for (PostgresShard shard : second.shards()) {
        assertEquals("4MB", show(shard.primary(), "work_mem"), "the first topology's setting stayed with it");
        assertEquals("0", one(shard.primary(), "SELECT count(*) FROM pg_class WHERE relname = 'left_behind'"));
        assertEquals("0", one(shard.primary(), "SELECT count(*) FROM pg_roles WHERE rolname = 'left_behind_role'"));
      }
      assertEquals(1, templates().size(), "one initdb for both topologies: " + templates());
    }
  }

  @Test
  void aTemplateDeletedUnderTheJvmIsMadeAgain() throws Exception {
    try (PostgresTopology pg = PostgresTopology.builder().workDirectory(workDir).start()) {
      assertEquals(1, templates().size());
    }
    DirectoryTreesForTests.delete(templates().get(0));
    assertTrue(templates().isEmpty());

    try (PostgresTopology pg = PostgresTopology.builder().workDirectory(workDir).start()) {
      assertEquals("1", one(pg.shard(0).primary(), "SELECT 1"));
      assertEquals(1, templates().size());
    }
    assertTrue(entries("run-").isEmpty(), "runs are deleted, the template stays until the JVM exits");
  }

  private List<Path> templates() throws IOException {
    return entries("template-");
  }

  private List<Path> entries(String prefix) throws IOException {
    try (Stream<Path> dirs = Files.list(workDir)) {
      return dirs.filter(d -> d.getFileName().toString().startsWith(prefix)).toList();
    }
  }

  private static String show(PostgresNode node, String setting) throws SQLException {
    return one(node, "SHOW " + setting);
  }

  private static String one(PostgresNode node, String query) throws SQLException {
    try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(query)) {
      rs.next();
      return rs.getString(1);
    }
  }

  private static void sql(PostgresNode node, String statements) throws SQLException {
    try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute(statements);
    }
  }
}
