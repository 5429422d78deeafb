package io.shardwise.hibernate.resharding.internal;

import io.shardwise.hibernate.resharding.ReshardTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;

/**
 * Logical replication for a move: the replica identity a row filter needs, the filtered
 * publication on the source, the subscription on the target, and the slots they hold.
 */
final class Replication {
  private Replication() {}

  /** The replica identity of a table as {@code default}, {@code nothing}, {@code full} or {@code index <name>}. */
  static String replicaIdentity(Connection c, String table) throws SQLException {
    return Sql.queryText(c, """
        SELECT CASE c.relreplident WHEN 'd' THEN 'default' WHEN 'n' THEN 'nothing' WHEN 'f' THEN 'full'
               ELSE 'index ' || (SELECT i.indexrelid::regclass::text FROM pg_index i
                                 WHERE i.indrelid = c.oid AND i.indisreplident) END
          FROM pg_class c WHERE c.oid = ?::regclass""", Sql.table(table));
  }

  /** The columns of the index behind a replica identity ({@code default}: the primary key), or none. */
  private static List<String> identityColumns(Connection c, String table, String identity) throws SQLException {
    String condition = identity.equals("default") ? "i.indisprimary" : identity.startsWith("index ") ? "i.indisreplident"
        : "false";
    return Sql.queryTexts(c, "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
        + "AND a.attnum = ANY(i.indkey) WHERE i.indrelid = ?::regclass AND " + condition, Sql.table(table));
  }

  /** The primary key's columns in key order (empty without one). */
  static List<String> primaryKey(Connection c, String table) throws SQLException {
    return Sql.queryTexts(c, "SELECT a.attname FROM pg_index i, unnest(i.indkey) WITH ORDINALITY AS k(attnum, n) "
        + "JOIN pg_attribute a ON a.attnum = k.attnum WHERE i.indrelid = ?::regclass AND i.indisprimary "
        + "AND a.attrelid = i.indrelid ORDER BY k.n", Sql.table(table));
  }

  /** What a move would set for {@code table}'s row filter, without changing anything. */
  static String identityPlan(Connection c, ReshardTable table) throws SQLException {
    String current = replicaIdentity(c, table.name());
    if (current.equals("full") || identityColumns(c, table.name(), current).contains(table.keyColumn())) {
      return "unchanged (" + current + " covers " + table.keyColumn() + ")";
    }
    String index = uniqueIndexWithKey(c, table);
    if (index != null) {
      return "index " + index + " (existing; now " + current + ")";
    }
    if (!primaryKey(c, table.name()).isEmpty() && keyNotNull(c, table)) {
      return "index " + createdIndexName(table) + " (to be created on primary key + " + table.keyColumn() + "; now "
          + current + ")";
    }
    return "full (now " + current + ")";
  }

  /**
   * Whether {@link #coverShardKey} would build a new index on {@code table} (its identity does not
   * cover the key, no unique index with the key exists, and a primary key does).
   */
  static boolean wouldBuildIndex(Connection c, ReshardTable table) throws SQLException {
    String current = replicaIdentity(c, table.name());
    return !current.equals("full") && !identityColumns(c, table.name(), current).contains(table.keyColumn())
        && uniqueIndexWithKey(c, table) == null && !primaryKey(c, table.name()).isEmpty() && keyNotNull(c, table);
  }

  static String createdIndexName(ReshardTable table) {
    return "shardwise_ri_" + Sql.bare(table.name());
  }

  private static boolean keyNotNull(Connection c, ReshardTable table) throws SQLException {
    return Sql.exists(c, "SELECT 1 FROM pg_attribute WHERE attrelid = ?::regclass AND attname = ? AND attnotnull",
        Sql.table(table.name()), table.keyColumn());
  }

  private static String uniqueIndexWithKey(Connection c, ReshardTable table) throws SQLException {
    return Sql.queryText(c, """
        SELECT i.indexrelid::regclass::text FROM pg_index i
         WHERE i.indrelid = ?::regclass AND i.indisunique AND i.indimmediate AND i.indisvalid
           AND i.indpred IS NULL AND i.indexprs IS NULL
           AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) AND a.attname = ?)
           AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) AND NOT a.attnotnull)
         ORDER BY i.indisprimary DESC, i.indexrelid LIMIT 1""", Sql.table(table.name()), table.keyColumn());
  }

  /**
   * Makes {@code table}'s replica identity cover its shard key, so that UPDATE and DELETE keep
   * working once a publication filters on it: kept when it already does; else an existing unique
   * index with the key; else a new unique index on the primary key plus the key (built
   * concurrently); else FULL. Records what it changes before changing it. Returns what it chose.
   */
  static String coverShardKey(Connection c, ReshardTable table, ObjectLog log) throws SQLException {
    String current = replicaIdentity(c, table.name());
    if (current.equals("full") || identityColumns(c, table.name(), current).contains(table.keyColumn())) {
      return "unchanged (" + current + " covers " + table.keyColumn() + ")";
    }
    log.record("replica-identity", table.name(), current);
    String index = uniqueIndexWithKey(c, table);
    String chosen;
    if (index != null) {
      chosen = "index " + index + " (existing)";
    } else if (!primaryKey(c, table.name()).isEmpty() && keyNotNull(c, table)) {
      index = Sql.ident(createdIndexName(table));
      log.record("index", createdIndexName(table), table.name());
      List<String> columns = new ArrayList<>(primaryKey(c, table.name()));
      if (!columns.contains(table.keyColumn())) {
        columns.add(table.keyColumn());
      }
      String schema = table.name().contains(".") ? Sql.ident(table.name().substring(0, table.name().indexOf('.'))) + "."
          : "";
      Sql.execute(c, "DROP INDEX CONCURRENTLY IF EXISTS " + schema + index,
          "CREATE UNIQUE INDEX CONCURRENTLY " + index + " ON " + Sql.table(table.name()) + " ("
              + String.join(", ", columns.stream().map(Sql::ident).toList()) + ")");
      chosen = "index " + createdIndexName(table) + " (created on " + String.join(", ", columns) + ")";
    } else {
      chosen = "full (no unique index with " + table.keyColumn() + " and no primary key to build one on)";
    }
    Sql.execute(c, "ALTER TABLE " + Sql.table(table.name()) + " REPLICA IDENTITY "
        + (chosen.startsWith("full") ? "FULL" : "USING INDEX " + index));
    return chosen;
  }

  /** Puts back a replica identity recorded as {@code default}, {@code nothing}, {@code full} or {@code index <name>}. */
  static void restoreIdentity(Connection c, String table, String identity) throws SQLException {
    if (!Sql.exists(c, "SELECT 1 WHERE to_regclass(?) IS NOT NULL", Sql.table(table))) {
      return;
    }
    String clause = switch (identity) {
      case "default" -> "DEFAULT";
      case "nothing" -> "NOTHING";
      case "full" -> "FULL";
      default -> "USING INDEX " + identity.substring("index ".length());
    };
    Sql.execute(c, "ALTER TABLE " + Sql.table(table) + " REPLICA IDENTITY " + clause);
  }

  static void dropIndex(Connection c, String table, String index) throws SQLException {
    String schema = table.contains(".") ? Sql.ident(table.substring(0, table.indexOf('.'))) + "." : "";
    Sql.execute(c, "DROP INDEX CONCURRENTLY IF EXISTS " + schema + Sql.ident(index));
  }

  /**
   * {@code CREATE PUBLICATION} for the moving buckets of every sharded table (a row filter built from
   * the router's hash) and this move's markers; inserts, updates and deletes only: a TRUNCATE on the
   * source must not empty the target.
   */
  static void createPublication(Connection c, String publication, List<ReshardTable> tables,
      Collection<Integer> buckets, int bucketCount, String workflowId) throws SQLException {
    if (Sql.exists(c, "SELECT 1 FROM pg_publication WHERE pubname = ?", publication)) {
      return;
    }
    List<String> members = new ArrayList<>();
    for (ReshardTable t : tables) {
      if (!t.isReference()) {
        members.add(Sql.table(t.name()) + " WHERE (" + Sql.inBuckets(t, buckets, bucketCount) + ")");
      }
    }
    members.add(Fences.SCHEMA + ".marker WHERE (workflow_id = " + Sql.literal(workflowId) + ")");
    Sql.execute(c, "CREATE PUBLICATION " + Sql.ident(publication) + " FOR TABLE " + String.join(", ", members)
        + " WITH (publish = 'insert, update, delete')");
  }

  static void dropPublication(Connection c, String publication) throws SQLException {
    Sql.execute(c, "DROP PUBLICATION IF EXISTS " + Sql.ident(publication));
  }

  /** A libpq connection string for a JDBC URL and credentials (what a subscription connects with). */
  static String conninfo(String jdbcUrl, String user, String password) {
    Properties parsed = org.postgresql.Driver.parseURL(jdbcUrl, new Properties());
    if (parsed == null) {
      throw new IllegalArgumentException("Not a PostgreSQL JDBC URL: " + io.shardwise.hibernate.internal.jdbc.JdbcUrls
          .redact(jdbcUrl));
    }
    StringBuilder out = new StringBuilder();
    append(out, "host", parsed.getProperty("PGHOST").split(",")[0]);
    append(out, "port", parsed.getProperty("PGPORT", "5432").split(",")[0]);
    append(out, "dbname", parsed.getProperty("PGDBNAME"));
    String u = user != null ? user : parsed.getProperty("user");
    String p = password != null ? password : parsed.getProperty("password");
    if (u != null) {
      append(out, "user", u);
    }
    if (p != null) {
      append(out, "password", p);
    }
    return out.toString().trim();
  }

  private static void append(StringBuilder out, String key, String value) {
    out.append(key).append("='").append(value.replace("\\", "\\\\").replace("'", "\\'")).append("' ");
  }

  /**
   * {@code CREATE SUBSCRIPTION} on the target: copies the published rows, then streams the source's
   * changes. {@code origin = none}: only changes made on the source itself, never ones it received by
   * replication (so a reverse subscription cannot loop).
   */
  static void createSubscription(Connection c, String subscription, String conninfo, String publication)
      throws SQLException {
    createSubscription(c, subscription, conninfo, publication, true);
  }

  /**
   * {@code CREATE SUBSCRIPTION} as above; without {@code copyData} it only streams the changes made
   * after its slot was created (reverse replication: the subscriber already holds the rows). The slot
   * is created on the publisher before this returns.
   */
  static void createSubscription(Connection c, String subscription, String conninfo, String publication,
      boolean copyData) throws SQLException {
    if (Sql.exists(c, "SELECT 1 FROM pg_subscription WHERE subname = ?", subscription)) {
      return;
    }
    Sql.execute(c, "CREATE SUBSCRIPTION " + Sql.ident(subscription) + " CONNECTION " + Sql.literal(conninfo)
        + " PUBLICATION " + Sql.ident(publication) + " WITH (copy_data = " + copyData + ", slot_name = "
        + Sql.literal(subscription) + ", origin = none, binary = true)");
  }

  /** The subscription's oid on the target, or -1. */
  static long subscriptionOid(Connection c, String subscription) throws SQLException {
    String oid = Sql.queryText(c, "SELECT oid FROM pg_subscription WHERE subname = ?", subscription);
    return oid == null ? -1 : Long.parseLong(oid);
  }

  /** Drops the subscription and, through it, its slots on the source; without the source when it cannot be reached. */
  static void dropSubscription(Connection c, String subscription) throws SQLException {
    if (!Sql.exists(c, "SELECT 1 FROM pg_subscription WHERE subname = ?", subscription)) {
      return;
    }
    Sql.execute(c, "ALTER SUBSCRIPTION " + Sql.ident(subscription) + " DISABLE");
    try {
      Sql.execute(c, "DROP SUBSCRIPTION " + Sql.ident(subscription));
    } catch (SQLException sourceUnreachable) {
      Sql.execute(c, "ALTER SUBSCRIPTION " + Sql.ident(subscription) + " SET (slot_name = NONE)",
          "DROP SUBSCRIPTION " + Sql.ident(subscription));
    }
  }

  /** Slots on this server that belong to the subscription: its own slot and its table-sync slots. */
  static List<String> slotsOf(Connection c, String slot, long subscriptionOid) throws SQLException {
    return Sql.queryTexts(c, "SELECT slot_name FROM pg_replication_slots WHERE slot_name = ? OR slot_name LIKE ? "
        + "ORDER BY slot_name", slot, subscriptionOid > 0 ? "pg\\_" + subscriptionOid + "\\_sync\\_%" : "-none-");
  }

  /** Drops the named slots, ending a walsender that still holds one. */
  static void dropSlots(Connection c, List<String> slots) throws SQLException {
    for (String slot : slots) {
      for (int attempt = 0; attempt < 50; attempt++) {
        String pid = Sql.queryText(c, "SELECT active_pid FROM pg_replication_slots WHERE slot_name = ?", slot);
        if (!Sql.exists(c, "SELECT 1 FROM pg_replication_slots WHERE slot_name = ?", slot)) {
          break;
        }
        if (pid != null) {
          Sql.queryText(c, "SELECT pg_terminate_backend(?::int)", Integer.parseInt(pid));
          Sql.queryText(c, "SELECT pg_sleep(0.05)");
          continue;
        }
        try {
          Sql.queryText(c, "SELECT pg_drop_replication_slot(?)", slot);
          break;
        } catch (SQLException e) {
          if (!"55006".equals(e.getSQLState()) && !"42704".equals(e.getSQLState())) {
            throw e;
          }
        }
      }
    }
  }

  /** Table-sync states of the subscription: how many tables, and how many are not ready ({@code r}) yet. */
  static long[] syncState(Connection c, String subscription) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT count(*), count(*) FILTER (WHERE r.srsubstate <> 'r') "
        + "FROM pg_subscription_rel r JOIN pg_subscription s ON s.oid = r.srsubid WHERE s.subname = ?")) {
      ps.setString(1, subscription);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new long[] {rs.getLong(1), rs.getLong(2)};
      }
    }
  }

  /** Per table: its sync state letter ({@code i d f s r}). */
  static java.util.Map<String, String> tableStates(Connection c, String subscription) throws SQLException {
    java.util.Map<String, String> out = new java.util.HashMap<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT r.srrelid::regclass::text, r.srsubstate FROM "
        + "pg_subscription_rel r JOIN pg_subscription s ON s.oid = r.srsubid WHERE s.subname = ?")) {
      ps.setString(1, subscription);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1).replace("\"", ""), rs.getString(2));
        }
      }
    }
    return out;
  }

  /** Rows copied so far per table by running table-sync workers on this (the target) server. */
  static java.util.Map<String, Long> copyProgress(Connection c) throws SQLException {
    java.util.Map<String, Long> out = new java.util.HashMap<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT relid::regclass::text, tuples_processed FROM "
        + "pg_stat_progress_copy WHERE command = 'COPY FROM'"); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.put(rs.getString(1).replace("\"", ""), rs.getLong(2));
      }
    }
    return out;
  }

  /** Errors the subscription's workers have hit so far (sync + apply), from pg_stat_subscription_stats. */
  static long errors(Connection c, String subscription) throws SQLException {
    String n = Sql.queryText(c, "SELECT sync_error_count + apply_error_count FROM pg_stat_subscription_stats "
        + "WHERE subname = ?", subscription);
    return n == null ? 0 : Long.parseLong(n);
  }

  /** WAL bytes the slot's confirmed position is behind the source's current position, or -1 without the slot. */
  static long lagBytes(Connection c, String slot) throws SQLException {
    String lag = Sql.queryText(c, "SELECT greatest(0, pg_current_wal_lsn() - confirmed_flush_lsn)::bigint FROM "
        + "pg_replication_slots WHERE slot_name = ?", slot);
    return lag == null ? -1 : Long.parseLong(lag);
  }
}
