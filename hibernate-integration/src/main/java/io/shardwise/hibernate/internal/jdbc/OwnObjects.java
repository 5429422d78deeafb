package io.shardwise.hibernate.internal.jdbc;

import io.shardwise.hibernate.ShardwiseDdl;
import io.shardwise.hibernate.ShardwiseObjectsMissingException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Makes sure Shardwise's own tables are usable on a connection, the one way every feature does it:
 * with {@code shardwise.ddl = create}, runs their idempotent DDL under an advisory lock
 * ({@link LockedDdl}) when the catalog shows something missing; otherwise reads the catalog only (no {@code CREATE} is attempted, so a role
 * without that privilege gets no error from it) and throws {@link ShardwiseObjectsMissingException}
 * with the script to run when a table is missing or the role lacks a privilege on it.
 */
public final class OwnObjects {
  private OwnObjects() {}

  private static final String CHECK = """
      SELECT n.oid IS NOT NULL, coalesce(has_schema_privilege(n.oid, 'USAGE'), false), c.oid::bigint,
             current_user, current_database()
      FROM (SELECT 1) one
      LEFT JOIN pg_namespace n ON n.nspname = ?
      LEFT JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = ?""";

  /** {@link #ensure(Connection, boolean, String, String, List, List, String, Function)} for a fixed feature. */
  public static void ensure(Connection c, boolean create, String where, ShardwiseDdl.Feature feature)
      throws SQLException {
    ensure(c, create, where, "shardwise." + feature.name().toLowerCase(java.util.Locale.ROOT), feature.statements(),
        feature.tables(), feature.privileges(), feature::script);
  }

  /**
   * Creates ({@code create}) or checks the tables on {@code c}, which may be in auto-commit mode.
   *
   * @param where the database as messages name it, e.g. {@code shard 'shard-1'}
   * @param lockName the advisory lock the DDL runs under
   * @param script the administrator's script for the connected role
   */
  public static void ensure(Connection c, boolean create, String where, String lockName, List<String> statements,
      List<String> tables, String privileges, Function<String, String> script) throws SQLException {
    if (!create) {
      check(c, where, tables, privileges, script);
      return;
    }
    try {
      check(c, where, tables, privileges, script);
    } catch (ShardwiseObjectsMissingException missing) {
      // only what is missing needs CREATE: a role that has the objects already never runs DDL
      LockedDdl.run(c, lockName, statements.toArray(String[]::new));
    }
  }

  /** The catalog check alone: throws when a table is missing or not usable by the connected role. */
  public static void check(Connection c, String where, List<String> tables, String privileges,
      Function<String, String> script) throws SQLException {
    List<String> problems = new ArrayList<>();
    String role = null;
    String database = null;
    boolean schemaReported = false;
    for (String table : tables) {
      long oid;
      int dot = table.indexOf('.');
      String schema = table.substring(0, dot);
      String name = table.substring(dot + 1);
      try (PreparedStatement ps = c.prepareStatement(CHECK)) {
        ps.setString(1, schema);
        ps.setString(2, name);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          role = rs.getString(4);
          database = rs.getString(5);
          if (!rs.getBoolean(1)) {
            if (!schemaReported) {
              problems.add("schema " + schema + " is missing");
              schemaReported = true;
            }
            continue;
          }
          if (!rs.getBoolean(2) && !schemaReported) {
            problems.add("role " + role + " has no USAGE on schema " + schema);
            schemaReported = true;
          }
          oid = rs.getLong(3);
          if (rs.wasNull()) {
            problems.add("table " + table + " is missing");
            continue;
          }
        }
      }
      List<String> lacking = new ArrayList<>();
      for (String privilege : privileges.split(",\\s*")) {
        try (PreparedStatement ps = c.prepareStatement("SELECT has_table_privilege(?::oid, ?)")) {
          ps.setLong(1, oid);
          ps.setString(2, privilege);
          try (ResultSet rs = ps.executeQuery()) {
            if (rs.next() && !rs.getBoolean(1)) {
              lacking.add(privilege);
            }
          }
        }
      }
      if (!lacking.isEmpty()) {
        problems.add("role " + role + " has no " + String.join(", ", lacking) + " on " + table);
      }
    }
    if (!problems.isEmpty()) {
      String url = JdbcUrls.redact(c.getMetaData().getURL());
      throw new ShardwiseObjectsMissingException(where + " (database " + database + " at " + url + ")",
          String.join("; ", problems), script.apply(role));
    }
  }
}
