package io.shardwise.hibernate.resharding.internal;

import io.shardwise.hibernate.resharding.ReshardTable;
import io.shardwise.hibernate.routing.BucketStrategy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/** SQL text the mover builds: quoted names, bucket expressions and filters, small query helpers. */
final class Sql {
  private Sql() {}

  @FunctionalInterface
  interface Work<T> {
    T apply(Connection c) throws SQLException;
  }

  /** {@code "schema"."table"} or {@code "table"}. */
  static String table(String name) {
    int dot = name.indexOf('.');
    return dot < 0 ? ident(name) : ident(name.substring(0, dot)) + "." + ident(name.substring(dot + 1));
  }

  static String ident(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  static String literal(String text) {
    return "'" + text.replace("'", "''") + "'";
  }

  /** The table name without its schema, for object names derived from it. */
  static String bare(String name) {
    int dot = name.indexOf('.');
    return dot < 0 ? name : name.substring(dot + 1);
  }

  /** The bucket of a row of {@code table}, as PostgreSQL computes it; {@code prefix} qualifies the column (e.g. NEW.). */
  static String bucketOf(ReshardTable table, String prefix, int bucketCount) {
    return BucketStrategy.sqlBucket(table.keyType(), prefix + ident(table.keyColumn()), bucketCount);
  }

  /**
   * A predicate selecting the rows of {@code buckets}: ranges of consecutive buckets as BETWEEN, so
   * that it stays a plain expression of built-in immutable functions and operators (what a
   * publication's row filter accepts).
   */
  static String inBuckets(ReshardTable table, Collection<Integer> buckets, int bucketCount) {
    String expression = bucketOf(table, "", bucketCount);
    List<String> parts = new ArrayList<>();
    Integer start = null;
    Integer previous = null;
    for (int b : new TreeSet<>(buckets)) {
      if (previous != null && b == previous + 1) {
        previous = b;
        continue;
      }
      if (start != null) {
        parts.add(range(expression, start, previous));
      }
      start = b;
      previous = b;
    }
    parts.add(range(expression, start, previous));
    return parts.size() == 1 ? parts.get(0) : "(" + String.join(" OR ", parts) + ")";
  }

  private static String range(String expression, int from, int to) {
    return from == to ? expression + " = " + from : expression + " BETWEEN " + from + " AND " + to;
  }

  static void execute(Connection c, String... statements) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }

  static long queryLong(Connection c, String sql, Object... args) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("no row from: " + sql);
        }
        return rs.getLong(1);
      }
    }
  }

  /** The first column of the first row, or null when there is no row. */
  static String queryText(Connection c, String sql, Object... args) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  static List<String> queryTexts(Connection c, String sql, Object... args) throws SQLException {
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  static boolean exists(Connection c, String sql, Object... args) throws SQLException {
    return queryText(c, sql, args) != null;
  }

  /**
   * {@code tables} in an order that deletes referencing rows before the rows they reference: a table
   * comes after every other table of the list with a foreign key to it (a cycle keeps the given order).
   */
  static List<ReshardTable> referencingFirst(Connection c, List<ReshardTable> tables) throws SQLException {
    java.util.Map<Long, ReshardTable> byOid = new java.util.LinkedHashMap<>();
    for (ReshardTable t : tables) {
      String oid = queryText(c, "SELECT to_regclass(?)::oid", table(t.name()));
      if (oid != null) {
        byOid.put(Long.parseLong(oid), t);
      }
    }
    List<long[]> keys = new ArrayList<>(); // (referencing, referenced)
    try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(
        "SELECT conrelid::oid, confrelid::oid FROM pg_constraint WHERE contype = 'f' AND conrelid <> confrelid")) {
      while (rs.next()) {
        if (byOid.containsKey(rs.getLong(1)) && byOid.containsKey(rs.getLong(2))) {
          keys.add(new long[] {rs.getLong(1), rs.getLong(2)});
        }
      }
    }
    List<ReshardTable> out = new ArrayList<>();
    java.util.Set<Long> left = new java.util.LinkedHashSet<>(byOid.keySet());
    while (!left.isEmpty()) {
      Long next = left.stream().filter(oid -> keys.stream().noneMatch(k -> k[1] == oid && left.contains(k[0])))
          .findFirst().orElse(left.iterator().next());
      out.add(byOid.get(next));
      left.remove(next);
    }
    for (ReshardTable t : tables) {
      if (!out.contains(t)) {
        out.add(t); // not on this server: the caller skips it
      }
    }
    return out;
  }
}
