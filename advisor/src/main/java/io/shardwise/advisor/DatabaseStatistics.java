package io.shardwise.advisor;

import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * What PostgreSQL already knows about the existing database, read in at most five catalog queries
 * on a read-only session ({@code setReadOnly(true)} and {@code default_transaction_read_only}):
 * table sizes ({@code pg_class.reltuples}), write counts ({@code pg_stat_user_tables}), foreign
 * keys ({@code pg_constraint}), the key columns' sample ({@code pg_stats}: {@code n_distinct},
 * {@code most_common_vals}/{@code most_common_freqs}, computed by {@code ANALYZE}) and, when the
 * extension is installed, {@code pg_stat_statements.calls}. No table is scanned.
 */
final class DatabaseStatistics {

  /** One table: estimated rows and the writes counted since the statistics were last reset. */
  record Table(String name, double rows, long inserts, long updates, long deletes) {
    long changes() {
      return updates + deletes;
    }
  }

  /** A single-column foreign key. */
  record ForeignKey(String table, String column, String referencedTable) {}

  /** One column's sample: distinct values (negative: a fraction of the rows) and most common values. */
  record ColumnStats(String table, String column, double nDistinct, List<String> mostCommonValues,
      List<Double> mostCommonFreqs) {

    double distinct(double rows) {
      return nDistinct >= 0 ? nDistinct : -nDistinct * rows;
    }
  }

  /** One normalized statement and how often it ran. */
  record StatementCalls(String query, long calls) {}

  private final Map<String, Table> tables;
  private final List<ForeignKey> foreignKeys;
  private final Map<String, ColumnStats> columns;
  private final List<StatementCalls> statements;
  private final boolean statementsInstalled;
  private final int catalogQueries;

  DatabaseStatistics(Map<String, Table> tables, List<ForeignKey> foreignKeys, Map<String, ColumnStats> columns,
      List<StatementCalls> statements, boolean statementsInstalled, int catalogQueries) {
    this.tables = tables;
    this.foreignKeys = foreignKeys;
    this.columns = columns;
    this.statements = statements;
    this.statementsInstalled = statementsInstalled;
    this.catalogQueries = catalogQueries;
  }

  private static final String TABLES = """
      SELECT c.relname, c.reltuples, coalesce(s.n_tup_ins, 0), coalesce(s.n_tup_upd, 0), coalesce(s.n_tup_del, 0)
        FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
       WHERE c.relkind IN ('r', 'p') AND n.nspname = ANY (current_schemas(false))""";

  private static final String FOREIGN_KEYS = """
      SELECT src.relname, a.attname, dst.relname
        FROM pg_constraint k
        JOIN pg_class src ON src.oid = k.conrelid
        JOIN pg_class dst ON dst.oid = k.confrelid
        JOIN pg_namespace n ON n.oid = src.relnamespace
        JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = k.conkey[1]
       WHERE k.contype = 'f' AND cardinality(k.conkey) = 1 AND n.nspname = ANY (current_schemas(false))""";

  private static final String COLUMN_STATS = """
      SELECT s.tablename, s.attname, s.n_distinct, s.most_common_vals::text, s.most_common_freqs
        FROM pg_stats s
        JOIN unnest(?::text[], ?::text[]) AS wanted(tablename, attname)
          ON wanted.tablename = s.tablename AND wanted.attname = s.attname
       WHERE s.schemaname = ANY (current_schemas(false))""";

  private static final String STATEMENTS = """
      SELECT query, calls FROM pg_stat_statements
       WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       ORDER BY calls DESC LIMIT 5000""";

  /**
   * Reads the catalog. {@code keyColumns} are the candidate key columns as table and column names
   * (lower case, as PostgreSQL folds unquoted names), read from {@code pg_stats} in one query.
   */
  static DatabaseStatistics read(String jdbcUrl, Properties login, List<String[]> keyColumns) {
    try (Connection connection = DriverManager.getConnection(jdbcUrl, login)) {
      connection.setReadOnly(true);
      try (Statement session = connection.createStatement()) {
        session.execute("SET default_transaction_read_only = on");
        session.execute("SET statement_timeout = '30s'");
      }
      connection.setAutoCommit(false);
      Map<String, Table> tables = new HashMap<>();
      try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery(TABLES)) {
        while (rs.next()) {
          tables.put(rs.getString(1), new Table(rs.getString(1), Math.max(0, rs.getDouble(2)), rs.getLong(3),
              rs.getLong(4), rs.getLong(5)));
        }
      }
      List<ForeignKey> foreignKeys = new ArrayList<>();
      try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery(FOREIGN_KEYS)) {
        while (rs.next()) {
          foreignKeys.add(new ForeignKey(rs.getString(1), rs.getString(2), rs.getString(3)));
        }
      }
      Map<String, ColumnStats> columns = columnStats(connection, keyColumns);
      int queries = 4;
      boolean installed;
      try (Statement st = connection.createStatement();
          ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'")) {
        installed = rs.next() && rs.getInt(1) > 0;
      }
      List<StatementCalls> statements = new ArrayList<>();
      if (installed) {
        queries++;
        try (Statement st = connection.createStatement(); ResultSet rs = st.executeQuery(STATEMENTS)) {
          while (rs.next()) {
            statements.add(new StatementCalls(rs.getString(1), rs.getLong(2)));
          }
        } catch (SQLException e) {
          // installed but not preloaded (shared_preload_libraries): no counts to weigh by
          connection.rollback();
          installed = false;
        }
      }
      connection.rollback();
      return new DatabaseStatistics(tables, foreignKeys, columns, statements, installed, queries);
    } catch (SQLException e) {
      throw new AdvisorException("Cannot read the statistics of " + redacted(jdbcUrl) + ": " + e.getMessage()
          + " (SQLSTATE " + e.getSQLState() + "). The advisor needs a role that may read pg_catalog and"
          + " pg_stats (any role may; pg_stats shows the columns of tables it may read).", e);
    }
  }

  private static Map<String, ColumnStats> columnStats(Connection connection, List<String[]> keyColumns)
      throws SQLException {
    Map<String, ColumnStats> columns = new HashMap<>();
    if (keyColumns.isEmpty()) {
      return columns;
    }
    try (PreparedStatement ps = connection.prepareStatement(COLUMN_STATS)) {
      Array tableNames = connection.createArrayOf("text", keyColumns.stream().map(c -> c[0]).toArray());
      Array columnNames = connection.createArrayOf("text", keyColumns.stream().map(c -> c[1]).toArray());
      ps.setArray(1, tableNames);
      ps.setArray(2, columnNames);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          List<String> values = textArray(rs.getString(4));
          List<Double> freqs = new ArrayList<>();
          Array freqArray = rs.getArray(5);
          if (freqArray != null) {
            for (Object f : (Object[]) freqArray.getArray()) {
              freqs.add(((Number) f).doubleValue());
            }
          }
          ColumnStats stats = new ColumnStats(rs.getString(1), rs.getString(2), rs.getDouble(3), values, freqs);
          columns.put(key(stats.table(), stats.column()), stats);
        }
      }
    }
    return columns;
  }

  /** {@code {1,"a b",3}} → its elements; keys are numbers, text or UUIDs, so no nested arrays. */
  static List<String> textArray(String literal) {
    List<String> values = new ArrayList<>();
    if (literal == null || literal.length() < 2) {
      return values;
    }
    String body = literal.substring(1, literal.length() - 1);
    StringBuilder current = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < body.length(); i++) {
      char c = body.charAt(i);
      if (c == '"') {
        quoted = !quoted;
      } else if (c == '\\' && i + 1 < body.length()) {
        current.append(body.charAt(++i));
      } else if (c == ',' && !quoted) {
        values.add(current.toString());
        current.setLength(0);
      } else {
        current.append(c);
      }
    }
    values.add(current.toString());
    return values;
  }

  private static String key(String table, String column) {
    return table.toLowerCase(Locale.ROOT) + "." + column.toLowerCase(Locale.ROOT);
  }

  static String redacted(String jdbcUrl) {
    return jdbcUrl.replaceAll("(?i)(password=)[^&;]*", "$1***");
  }

  /** The table of this name as the catalog knows it (folded to lower case, or snake case), or null. */
  Table table(String name) {
    Table table = tables.get(name.toLowerCase(Locale.ROOT));
    return table != null ? table : tables.get(JpaModel.snakeCase(name));
  }

  ColumnStats column(String table, String column) {
    return columns.get(key(table, column));
  }

  List<ForeignKey> foreignKeys() {
    return foreignKeys;
  }

  List<StatementCalls> statements() {
    return statements;
  }

  boolean statementsInstalled() {
    return statementsInstalled;
  }

  int catalogQueries() {
    return catalogQueries;
  }
}
