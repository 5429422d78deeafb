package io.shardwise.hibernate.internal.jdbc;

import io.shardwise.hibernate.ShardwiseDdl;
import io.shardwise.hibernate.ShardwiseObjectsMissingException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Makes sure Shardwise's own tables are usable on a connection, the one way every feature does it:
 * with {@code shardwise.ddl = create}, runs their idempotent DDL under an advisory lock
 * ({@link LockedDdl}) when the catalog shows something missing; otherwise reads the catalog only (no {@code CREATE} is attempted, so a role
 * without that privilege gets no error from it) and throws {@link ShardwiseObjectsMissingException}
 * with the script to run when a table or one of its columns is missing, or the role lacks a
 * privilege on it. A table made by an older Shardwise lacks the columns added since: the check
 * names them, and the DDL adds them ({@code ADD COLUMN IF NOT EXISTS}).
 */
public final class OwnObjects {
  private OwnObjects() {}

  private static final String CHECK = """
      SELECT n.oid IS NOT NULL, coalesce(has_schema_privilege(n.oid, 'USAGE'), false), c.oid::bigint,
             current_user, current_database()
      FROM (SELECT 1) one
      LEFT JOIN pg_namespace n ON n.nspname = ?
      LEFT JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = ?""";

  private static final String MISSING_COLUMNS = """
      SELECT string_agg(want.name, ', ' ORDER BY want.ord)
      FROM unnest(?::text[]) WITH ORDINALITY AS want(name, ord)
      WHERE NOT EXISTS (SELECT 1 FROM pg_attribute a
                        WHERE a.attrelid = ?::oid AND a.attname = want.name AND a.attnum > 0 AND NOT a.attisdropped)""";

  /** {@link #check(Connection, String, List, List, String, Function)} for a fixed feature. */
  public static void check(Connection c, String where, ShardwiseDdl.Feature feature) throws SQLException {
    check(c, where, feature.statements(), feature.tables(), feature.privileges(), feature::script);
  }

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
      check(c, where, statements, tables, privileges, script);
      return;
    }
    try {
      check(c, where, statements, tables, privileges, script);
    } catch (ShardwiseObjectsMissingException missing) {
      // only what is missing needs CREATE: a role that has the objects already never runs DDL
      LockedDdl.run(c, lockName, statements.toArray(String[]::new));
      // what the DDL cannot mend (a column its statements do not add) is still refused, with the script
      check(c, where, statements, tables, privileges, script);
    }
  }

  /**
   * The catalog check alone: throws when a table or a column that {@code statements} create is
   * missing, or a table is not usable by the connected role.
   */
  public static void check(Connection c, String where, List<String> statements, List<String> tables,
      String privileges, Function<String, String> script) throws SQLException {
    Map<String, Set<String>> columns = columns(statements);
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
      Set<String> expected = columns.getOrDefault(table.toLowerCase(Locale.ROOT), Set.of());
      if (!expected.isEmpty()) {
        try (PreparedStatement ps = c.prepareStatement(MISSING_COLUMNS)) {
          ps.setArray(1, c.createArrayOf("text", expected.toArray()));
          ps.setLong(2, oid);
          try (ResultSet rs = ps.executeQuery()) {
            String missing = rs.next() ? rs.getString(1) : null;
            if (missing != null) {
              problems.add("table " + table + " lacks column(s) " + missing + " (made by an older Shardwise?)");
            }
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

  /**
   * The columns each table gets from {@code statements}, Shardwise's own DDL: those of {@code CREATE
   * TABLE ... (...)} and of {@code ALTER TABLE ... ADD COLUMN IF NOT EXISTS}; by unquoted, lower-case
   * {@code schema.table}.
   */
  public static Map<String, Set<String>> columns(List<String> statements) {
    Map<String, Set<String>> columns = new LinkedHashMap<>();
    for (String statement : statements) {
      String sql = statement.strip();
      String upper = sql.toUpperCase(Locale.ROOT);
      if (upper.startsWith("CREATE TABLE IF NOT EXISTS ")) {
        int open = sql.indexOf('(');
        int close = sql.lastIndexOf(')');
        String table = unquoted(sql.substring("CREATE TABLE IF NOT EXISTS ".length(), open).strip());
        Set<String> names = columns.computeIfAbsent(table, t -> new LinkedHashSet<>());
        for (String element : topLevelParts(sql.substring(open + 1, close))) {
          String first = element.strip().split("\\s+", 2)[0];
          String keyword = first.toUpperCase(Locale.ROOT);
          if (!first.isEmpty() && !List.of("PRIMARY", "UNIQUE", "CONSTRAINT", "CHECK", "FOREIGN", "EXCLUDE")
              .contains(keyword)) {
            names.add(unquoted(first));
          }
        }
      } else if (upper.startsWith("ALTER TABLE ") && upper.contains(" ADD COLUMN IF NOT EXISTS ")) {
        int add = upper.indexOf(" ADD COLUMN IF NOT EXISTS ");
        String table = unquoted(sql.substring("ALTER TABLE ".length(), add).strip());
        String column = sql.substring(add + " ADD COLUMN IF NOT EXISTS ".length()).strip().split("\\s+", 2)[0];
        columns.computeIfAbsent(table, t -> new LinkedHashSet<>()).add(unquoted(column));
      }
    }
    return columns;
  }

  /** The comma-separated parts of a parenthesised list, ignoring commas inside nested parentheses. */
  private static List<String> topLevelParts(String list) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < list.length(); i++) {
      char ch = list.charAt(i);
      if (ch == '(') {
        depth++;
      } else if (ch == ')') {
        depth--;
      } else if (ch == ',' && depth == 0) {
        parts.add(list.substring(start, i));
        start = i + 1;
      }
    }
    parts.add(list.substring(start));
    return parts;
  }

  /** {@code "a"."b"} or {@code a.b} as {@code a.b}, lower case for the unquoted parts. */
  private static String unquoted(String name) {
    StringBuilder out = new StringBuilder();
    for (String part : name.split("\\.(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)")) {
      out.append(out.length() == 0 ? "" : ".");
      out.append(part.startsWith("\"") && part.endsWith("\"") && part.length() >= 2
          ? part.substring(1, part.length() - 1).replace("\"\"", "\"")
          : part.toLowerCase(Locale.ROOT));
    }
    return out.toString();
  }
}
