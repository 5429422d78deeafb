package io.shardwise.hibernate.resharding.internal;

import io.shardwise.hibernate.resharding.ReshardTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Creates the moving and reference tables on the target from the source's own catalog (columns,
 * types, defaults, primary and unique keys, checks, indexes, and foreign keys between tables the
 * target has), so the target matches the source exactly, whatever created the source's tables
 * (Hibernate, Flyway, hand-written DDL). A table the target has already is compared instead:
 * the same columns with the same types, or the move refuses.
 */
final class SchemaCopy {
  private SchemaCopy() {}

  /** One column as the source defines it. */
  record Column(String name, String type, boolean notNull, String defaultExpression, String identity) {}

  static List<Column> columns(Connection c, String table) throws SQLException {
    List<Column> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("""
        SELECT a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid),
               a.attidentity
          FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
         WHERE a.attrelid = ?::regclass AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
         ORDER BY a.attnum""")) {
      ps.setString(1, Sql.table(table));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new Column(rs.getString(1), rs.getString(2), rs.getBoolean(3), rs.getString(4), rs.getString(5)));
        }
      }
    }
    return out;
  }

  static boolean exists(Connection c, String table) throws SQLException {
    return Sql.exists(c, "SELECT 1 WHERE to_regclass(?) IS NOT NULL", Sql.table(table));
  }

  /** Why the source's table cannot be moved as it is (no primary key, a sequence default), or empty. */
  static List<String> warnings(Connection source, ReshardTable table) throws SQLException {
    List<String> out = new ArrayList<>();
    if (Replication.primaryKey(source, table.name()).isEmpty()) {
      out.add(table.name() + " has no primary key: verification cannot name differing rows");
    }
    for (Column col : columns(source, table.name())) {
      if (!col.identity().isEmpty() || col.defaultExpression() != null && col.defaultExpression().contains("nextval(")) {
        out.add(table.name() + "." + col.name() + " takes values from a sequence of its shard: rows created on"
            + " different shards may get the same value unless the application supplies them (@SnowflakeId, or"
            + " shardwise.ids.generated = cluster for @GeneratedValue ids)");
      }
    }
    return out;
  }

  /**
   * Creates on {@code target} each table of {@code tables} it lacks, in one transaction, and returns
   * the tables created; compares the ones it has.
   *
   * @throws SQLException when a table the target has differs from the source's, naming the columns
   */
  static List<String> copy(Connection source, Connection target, List<ReshardTable> tables, ObjectLog log)
      throws SQLException {
    List<String> missing = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (ReshardTable t : tables) {
      if (!exists(source, t.name())) {
        problems.add("the source has no table " + t.name());
      } else if (exists(target, t.name())) {
        List<String> a = columns(source, t.name()).stream().map(col -> col.name() + " " + col.type()).toList();
        List<String> b = columns(target, t.name()).stream().map(col -> col.name() + " " + col.type()).toList();
        if (!a.equals(b)) {
          problems.add("table " + t.name() + " differs: source has " + a + ", target has " + b);
        }
      } else {
        missing.add(t.name());
      }
    }
    if (!problems.isEmpty()) {
      throw new SQLException(String.join("; ", problems));
    }
    if (missing.isEmpty()) {
      return missing;
    }
    for (String table : missing) {
      log.record("table", table, "created from the source's catalog");
    }
    boolean autoCommit = target.getAutoCommit();
    target.setAutoCommit(false);
    try {
      List<String> later = new ArrayList<>();
      for (String table : missing) {
        int dot = table.indexOf('.');
        if (dot > 0) {
          Sql.execute(target, "CREATE SCHEMA IF NOT EXISTS " + Sql.ident(table.substring(0, dot)));
        }
        List<String> definitions = new ArrayList<>();
        for (Column col : columns(source, table)) {
          String def = Sql.ident(col.name()) + " " + col.type() + (col.notNull() ? " NOT NULL" : "");
          if (col.defaultExpression() != null && !col.defaultExpression().contains("nextval(")) {
            def += " DEFAULT " + col.defaultExpression();
          }
          definitions.add(def);
        }
        Sql.execute(target, "CREATE TABLE " + Sql.table(table) + " (" + String.join(", ", definitions) + ")");
        try (PreparedStatement ps = source.prepareStatement("SELECT conname, contype, pg_get_constraintdef(oid), "
            + "confrelid::regclass::text FROM pg_constraint WHERE conrelid = ?::regclass AND contype IN ('p', 'u', 'c', 'f', 'x') "
            + "ORDER BY contype = 'f', conname")) {
          ps.setString(1, Sql.table(table));
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              String add = "ALTER TABLE " + Sql.table(table) + " ADD CONSTRAINT " + Sql.ident(rs.getString(1)) + " "
                  + rs.getString(3);
              if ("f".equals(rs.getString(2))) {
                later.add(rs.getString(4) + "\u0000" + add);
              } else {
                Sql.execute(target, add);
              }
            }
          }
        }
        for (String index : Sql.queryTexts(source, "SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i WHERE "
            + "i.indrelid = ?::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid) "
            + "AND i.indexrelid::regclass::text NOT LIKE 'shardwise\\_ri\\_%'", Sql.table(table))) {
          Sql.execute(target, index);
        }
      }
      for (String fk : later) {
        String[] parts = fk.split("\u0000");
        if (exists(target, parts[0].replace("\"", ""))) {
          Sql.execute(target, parts[1]);
        }
      }
      target.commit();
    } catch (SQLException | RuntimeException e) {
      target.rollback();
      throw e;
    } finally {
      target.setAutoCommit(autoCommit);
    }
    return missing;
  }
}
