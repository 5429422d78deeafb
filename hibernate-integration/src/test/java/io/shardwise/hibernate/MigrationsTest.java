package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.bank.Account;
import io.shardwise.hibernate.migrations.MigrationFailedException;
import io.shardwise.hibernate.migrations.MigrationReport;
import io.shardwise.hibernate.migrations.Migrations;
import io.shardwise.hibernate.migrations.SchemaVersionMismatchException;
import io.shardwise.hibernate.migrations.ShardSchemaVersion;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Flyway migrations on three real shards (a primary and a streaming replica each): a migration that
 * fails on the second shard midway, the report, the version gate refusing (or marking) the shards at
 * different versions, the fix and the resume; and a non-transactional script that stops midway.
 * Each test has its own history table and tables, so they share the topology without meeting.
 */
@ShardedPostgres(shards = 3, replicas = 1)
class MigrationsTest {
  private static final List<String> SHARDS = List.of("s0", "s1", "s2");
  private static final String PARTIAL_SCHEMA = "?currentSchema=partial";

  @TempDir
  Path scripts;

  @Test
  void aFailureOnOneShardStopsTheRunAndTheRunResumesAfterTheFix(PostgresTopology pg) throws Exception {
    Map<String, Object> settings = settings(pg, "history_resume");
    write("V1__create_customer.sql", """
        CREATE TABLE resume_customer (id bigint PRIMARY KEY, email text);
        CREATE TABLE resume_country (code char(2) PRIMARY KEY, name text NOT NULL);
        """);
    Migrations migrations = Shardwise.migrations(settings);
    MigrationReport first = migrations.migrate();
    assertEquals("[s0: none -> 1 (1 script), s1: none -> 1 (1 script), s2: none -> 1 (1 script)]",
        first.shards().toString());
    for (int i = 0; i < 3; i++) {
      assertTrue(tableExists(pg.shard(i).primary(), "resume_country"), "reference table on shard " + i);
    }

    // one row on s1 breaks V2; the same scripts pass on s0
    execute(pg.shard(1).primary(), "INSERT INTO resume_customer VALUES (7, NULL)");
    write("V2__email_required.sql", """
        CREATE TABLE resume_audit (id bigint PRIMARY KEY);
        ALTER TABLE resume_customer ALTER COLUMN email SET NOT NULL;
        """);
    write("V3__email_index.sql", "CREATE INDEX resume_customer_email ON resume_customer (email);");

    MigrationFailedException failure = assertThrows(MigrationFailedException.class, migrations::migrate);
    assertEquals("s1", failure.shardId());
    assertEquals("V2__email_required.sql", failure.script());
    assertEquals("23502", failure.sqlState());
    assertEquals("[s0: 1 -> 3 (2 scripts)]", failure.report().shards().toString());
    String m = failure.getMessage();
    assertTrue(m.startsWith("Migration stopped at shard 's1' (" + pg.shard(1).primary().host() + ":"
        + pg.shard(1).primary().port() + "): script V2__email_required.sql (version 2) failed with SQLSTATE 23502"), m);
    assertTrue(m.contains("contains null values"), m);
    assertTrue(m.contains("rolled back: s1 is still at its previous version"), m);
    assertTrue(m.contains("run `shardwise migrate` again"), m);
    assertTrue(m.contains("The shards after it are untouched; shards [s0] before it are migrated."), m);
    // the transactional script left nothing behind on s1 (not even its first statement), s2 was not touched
    assertFalse(tableExists(pg.shard(1).primary(), "resume_audit"));
    assertTrue(tableExists(pg.shard(0).primary(), "resume_audit"));
    assertFalse(tableExists(pg.shard(2).primary(), "resume_audit"));

    assertEquals(List.of("s0 3 0", "s1 1 2", "s2 1 2"), versions(migrations.status()));
    ShardSchemaVersion s1 = migrations.status().get(1);
    assertEquals(pg.shard(1).primary().host() + ":" + pg.shard(1).primary().port(), s1.server());
    assertEquals("create customer", s1.description());

    // the gate: this session factory does not start with its shards at 3, 1 and 1
    SchemaVersionMismatchException refused = assertThrows(SchemaVersionMismatchException.class,
        () -> sessionFactory(pg, "history_resume", "refuse", "").close());
    assertTrue(refused.getMessage().contains("shards are at different schema versions (s0: 3, s1: 1, s2: 1)"),
        refused.getMessage());
    assertTrue(refused.getMessage().contains("Run `shardwise migrate`"), refused.getMessage());
    assertEquals(3, refused.versions().size());

    // ... or starts with the shards behind unavailable, primary and replica alike
    try (SessionFactory sf = sessionFactory(pg, "history_resume", "mark-unavailable", "")) {
      ShardedSessions shards = ShardedSessions.of(sf);
      assertEquals(List.of(pg.shard(0).primary().port(), 0), serverOf(shards.forShard("s0")));
      for (boolean readOnly : new boolean[] {false, true}) {
        ShardRoute route = readOnly ? shards.forShard("s1").readOnly() : shards.forShard("s1");
        ShardUnavailableException behind = assertThrows(ShardUnavailableException.class, () -> serverOf(route));
        assertEquals("s1", behind.shardId());
        assertTrue(behind.getMessage().contains("is at schema version 1 while other shards are at 3"),
            behind.getMessage());
      }

      // the fix, on s1's data; the resume continues where each shard is
      execute(pg.shard(1).primary(), "UPDATE resume_customer SET email = 'seven@example.com' WHERE id = 7");
      MigrationReport resumed = shards.migrations().migrate();
      assertEquals("[s0: up to date at 3, s1: 1 -> 3 (2 scripts), s2: 1 -> 3 (2 scripts)]",
          resumed.shards().toString());
      assertEquals(List.of("s0 3 0", "s1 3 0", "s2 3 0"), versions(shards.migrations().status()));
      // the gate read the versions again: s1 serves sessions, from its own primary
      assertEquals(List.of(pg.shard(1).primary().port(), 0), serverOf(shards.forShard("s1")));
    }
    // the replicas follow their primaries by streaming replication
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
    for (int i = 0; i < 3; i++) {
      assertTrue(tableExists(pg.shard(i).replica(0), "resume_audit"), "replica of shard " + i);
    }
    sessionFactory(pg, "history_resume", "refuse", "").close();
  }

  @Test
  void aNonTransactionalScriptThatStopsMidwayIsRecordedRepairedAndRetried(PostgresTopology pg) throws Exception {
    // its own schema: Flyway refuses a schema with tables but no history, like public after the other test
    Map<String, Object> settings = settings(pg, "history_partial");
    settings.replaceAll((key, value) -> key.endsWith(".url") ? value + PARTIAL_SCHEMA : value);
    write("V1__create_member.sql", "CREATE TABLE partial_member (id bigint PRIMARY KEY, handle text);");
    Migrations migrations = Shardwise.migrations(settings);
    migrations.migrate();
    execute(pg.shard(2).primary(), "INSERT INTO partial.partial_member VALUES (1, 'ann'), (2, 'ann')");
    write("V2__unique_handle.sql", "CREATE UNIQUE INDEX CONCURRENTLY partial_member_handle ON partial_member (handle);");

    MigrationFailedException failure = assertThrows(MigrationFailedException.class, migrations::migrate);
    assertEquals("s2", failure.shardId());
    assertEquals("23505", failure.sqlState());
    assertTrue(failure.getMessage().contains("could not run in a transaction, so part of it may have been applied"),
        failure.getMessage());
    assertTrue(failure.getMessage().contains("`shardwise migrate --repair --shard-id s2`"), failure.getMessage());
    // what it left behind: an invalid index on s2, and a failed entry in s2's history
    assertTrue(tableExists(pg.shard(2).primary(), "partial.partial_member_handle"));
    ShardSchemaVersion s2 = migrations.status().get(2);
    assertEquals("V2__unique_handle.sql", s2.failedScript());
    assertEquals("1 (failed: V2__unique_handle.sql)", s2.shownVersion());

    SchemaVersionMismatchException refused = assertThrows(SchemaVersionMismatchException.class,
        () -> sessionFactory(pg, "history_partial", "refuse", PARTIAL_SCHEMA).close());
    assertTrue(refused.getMessage().contains("(s0: 2, s1: 2, s2: 1 (failed: V2__unique_handle.sql))"),
        refused.getMessage());
    assertTrue(refused.getMessage().contains("a failed non-transactional script is recorded on"
        + " [s2 (V2__unique_handle.sql)]"), refused.getMessage());

    // re-running without the repair fails again, before any script, on the same shard
    MigrationFailedException again = assertThrows(MigrationFailedException.class, migrations::migrate);
    assertEquals("s2", again.shardId());
    assertNull(again.script());

    execute(pg.shard(2).primary(), "DROP INDEX partial.partial_member_handle; DELETE FROM partial.partial_member WHERE id = 2");
    migrations.repair("s2");
    MigrationReport resumed = migrations.migrate();
    assertEquals("[s0: up to date at 2, s1: up to date at 2, s2: 1 -> 2 (1 script)]", resumed.shards().toString());
    assertEquals(List.of("s0 2 0", "s1 2 0", "s2 2 0"), versions(migrations.status()));
    sessionFactory(pg, "history_partial", "refuse", PARTIAL_SCHEMA).close();
  }

  @Test
  void anUnreachableShardIsReportedWithoutTheCredentialsOfItsUrl(PostgresTopology pg) {
    Map<String, Object> settings = settings(pg, "history_unreachable");
    settings.replaceAll((key, value) -> key.endsWith(".url") ? value + "?currentSchema=unreachable" : value);
    settings.put(ShardwiseSettings.SHARD_PREFIX + "s1.url", "jdbc:postgresql://127.0.0.1:1/shop?password=hunter2");
    MigrationFailedException failure = assertThrows(MigrationFailedException.class,
        () -> Shardwise.migrations(settings).migrate());
    assertEquals("s1", failure.shardId());
    assertEquals("[s0: up to date at none]", failure.report().shards().toString());
    assertTrue(failure.getMessage().startsWith("Migration stopped at shard 's1' (127.0.0.1:1) before any script ran"),
        failure.getMessage());
    assertFalse(failure.getMessage().contains("hunter2"), failure.getMessage());
    assertFalse(String.valueOf(failure.getCause().getMessage()).isEmpty());
  }

  // ---- helpers ---------------------------------------------------------------------------------

  private Map<String, Object> settings(PostgresTopology pg, String historyTable) {
    Map<String, Object> settings = new HashMap<>();
    settings.put(ShardwiseSettings.SHARDS, String.join(",", SHARDS));
    for (int i = 0; i < SHARDS.size(); i++) {
      settings.put(ShardwiseSettings.SHARD_PREFIX + SHARDS.get(i) + ".url", pg.shard(i).primary().jdbcUrl());
    }
    settings.put(ShardwiseSettings.USER, "postgres");
    settings.put(ShardwiseSettings.MIGRATIONS_LOCATIONS, "filesystem:" + scripts);
    settings.put(ShardwiseSettings.MIGRATIONS_TABLE, historyTable);
    return settings;
  }

  private SessionFactory sessionFactory(PostgresTopology pg, String historyTable, String gate, String urlSuffix) {
    Shardwise.Builder builder = Shardwise.configure().credentials("postgres", null);
    for (int i = 0; i < SHARDS.size(); i++) {
      builder.shard(SHARDS.get(i), pg.shard(i).primary().jdbcUrl() + urlSuffix)
          .replica(SHARDS.get(i), pg.shard(i).replica(0).jdbcUrl() + urlSuffix);
    }
    return builder.entities(Account.class)
        .property(ShardwiseSettings.MIGRATIONS_LOCATIONS, "filesystem:" + scripts)
        .property(ShardwiseSettings.MIGRATIONS_TABLE, historyTable)
        .property(ShardwiseSettings.MIGRATIONS_GATE, gate)
        .buildSessionFactory();
  }

  /** The server a session of {@code route} runs on: its port and whether it is a standby (1) or not (0). */
  private static List<Integer> serverOf(ShardRoute route) {
    Object[] row = route.fromSession(s -> (Object[]) s.createNativeQuery(
        "select inet_server_port(), case when pg_is_in_recovery() then 1 else 0 end", Object[].class)
        .getSingleResult());
    return List.of(((Number) row[0]).intValue(), ((Number) row[1]).intValue());
  }

  private static List<String> versions(List<ShardSchemaVersion> status) {
    return status.stream().map(v -> v.shardId() + " " + v.version() + " " + v.pendingScripts()).toList();
  }

  private void write(String name, String sql) throws IOException {
    Files.writeString(scripts.resolve(name), sql);
  }

  private static void execute(PostgresNode node, String sql) throws SQLException {
    try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static boolean tableExists(PostgresNode node, String relation) throws SQLException {
    try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select to_regclass('" + relation + "') is not null")) {
      rs.next();
      return rs.getBoolean(1);
    }
  }
}
