package io.shardwise.benchmarks;

import io.shardwise.hibernate.id.Snowflake;
import io.shardwise.hibernate.id.SnowflakeLayout;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresTopology;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Inserts the same number of rows into four tables that differ only in their primary key —
 * {@code bigserial}, Snowflake {@code bigint}, UUIDv4 and UUIDv7 — on an embedded PostgreSQL whose
 * {@code shared_buffers} is much smaller than the indexes, and reports insert rate (overall and
 * over the last tenth), primary-key index size, leaf density and fragmentation ({@code
 * pgstatindex}) and WAL bytes. Progress is printed every tenth of each table.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
 * java -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) \
 *     io.shardwise.benchmarks.BTreeInsertWorkload [rows, default 1000000] [shared_buffers, default 16MB]
 * </pre>
 */
public final class BTreeInsertWorkload {
  private static final int BATCH = 1_000;

  private record KeyType(String name, String column, Supplier<Object> keys) {}

  private record Result(String name, double rowsPerSecond, double lastTenthRowsPerSecond, long indexBytes,
      double leafDensity, double leafFragmentation, long walBytes) {}

  private BTreeInsertWorkload() {}

  public static void main(String[] args) throws SQLException {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
    String sharedBuffers = args.length > 1 ? args[1] : "16MB";
    Snowflake snowflake = Snowflake.builder(SnowflakeLayout.DEFAULT).workerId(1).build();
    List<KeyType> types = List.of(
        new KeyType("bigserial", "id bigserial PRIMARY KEY", null),
        new KeyType("snowflake", "id bigint PRIMARY KEY", snowflake::nextId),
        new KeyType("uuid_v4", "id uuid PRIMARY KEY", UUID::randomUUID),
        new KeyType("uuid_v7", "id uuid PRIMARY KEY", IdGeneratorBenchmark.UuidV7::next));

    System.out.printf("starting PostgreSQL with shared_buffers=%s; %,d rows per key type%n", sharedBuffers, rows);
    try (PostgresTopology pg = PostgresTopology.builder().shards(1).setting("shared_buffers", sharedBuffers)
        .setting("max_wal_size", "'4GB'").start()) {
      PostgresNode node = pg.shard(0).primary();
      List<Result> results = new ArrayList<>();
      try (Connection c = DriverManager.getConnection(node.jdbcUrl() + "?reWriteBatchedInserts=true",
          node.user(), null)) {
        execute(c, "CREATE EXTENSION IF NOT EXISTS pgstattuple");
        for (KeyType type : types) {
          results.add(run(c, type, rows));
        }
      }
      System.out.println();
      System.out.println(table(results, rows, sharedBuffers));
    }
  }

  private static Result run(Connection c, KeyType type, int rows) throws SQLException {
    String table = "t_" + type.name();
    execute(c, "DROP TABLE IF EXISTS " + table);
    execute(c, "CREATE TABLE " + table + " (" + type.column() + ", payload bigint NOT NULL)");
    execute(c, "CHECKPOINT");
    String walBefore = string(c, "SELECT pg_current_wal_insert_lsn()::text");
    String sql = type.keys() == null
        ? "INSERT INTO " + table + " (payload) VALUES (?)"
        : "INSERT INTO " + table + " (id, payload) VALUES (?, ?)";
    long start = System.nanoTime();
    long tenthStart = start;
    double lastTenthRate = 0;
    int tenth = Math.max(BATCH, rows / 10);
    try (PreparedStatement insert = c.prepareStatement(sql)) {
      for (int i = 1; i <= rows; i++) {
        if (type.keys() == null) {
          insert.setLong(1, i);
        } else {
          insert.setObject(1, type.keys().get());
          insert.setLong(2, i);
        }
        insert.addBatch();
        if (i % BATCH == 0 || i == rows) {
          insert.executeBatch();
        }
        if (i % tenth == 0 || i == rows) {
          long now = System.nanoTime();
          lastTenthRate = (i % tenth == 0 ? tenth : i % tenth) / ((now - tenthStart) / 1e9);
          tenthStart = now;
          System.out.printf(Locale.ROOT, "  %-9s %,11d / %,d rows  %,9.0f rows/s in the last step%n", type.name(), i,
              rows, lastTenthRate);
        }
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    long wal = Long.parseLong(string(c, "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '" + walBefore + "')::bigint::text"));
    long indexBytes = Long.parseLong(string(c, "SELECT pg_relation_size('" + table + "_pkey')::text"));
    double density;
    double fragmentation;
    try (Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT avg_leaf_density, leaf_fragmentation FROM pgstatindex('" + table + "_pkey')")) {
      rs.next();
      density = rs.getDouble(1);
      fragmentation = rs.getDouble(2);
    }
    return new Result(type.name(), rows / seconds, lastTenthRate, indexBytes, density, fragmentation, wal);
  }

  private static String table(List<Result> results, int rows, String sharedBuffers) {
    StringBuilder out = new StringBuilder();
    out.append(String.format(Locale.ROOT, "%,d rows per key type, shared_buffers=%s, batches of %d%n%n", rows,
        sharedBuffers, BATCH));
    out.append("| primary key | rows/s overall | rows/s last tenth | pkey index MB | avg leaf density % "
        + "| leaf fragmentation % | WAL MB |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (Result r : results) {
      out.append(String.format(Locale.ROOT, "| %s | %,.0f | %,.0f | %.1f | %.1f | %.1f | %.1f |%n", r.name(),
          r.rowsPerSecond(), r.lastTenthRowsPerSecond(), r.indexBytes() / 1048576.0, r.leafDensity(),
          r.leafFragmentation(), r.walBytes() / 1048576.0));
    }
    return out.toString();
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static String string(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
