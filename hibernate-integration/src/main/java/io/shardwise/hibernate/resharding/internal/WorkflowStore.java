package io.shardwise.hibernate.resharding.internal;

import io.shardwise.hibernate.internal.jdbc.DriverConnections;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.internal.jdbc.LockedDdl;
import io.shardwise.hibernate.internal.jdbc.ServerTimeouts;
import io.shardwise.hibernate.resharding.ReshardObject;
import io.shardwise.hibernate.resharding.ReshardPhase;
import io.shardwise.hibernate.resharding.ReshardTable;
import io.shardwise.hibernate.resharding.ReshardWorkflow;
import io.shardwise.hibernate.resharding.ReshardingException;
import io.shardwise.hibernate.routing.ShardDescriptor;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;

/**
 * The moves' records in the control database (schema {@code shardwise}, beside the shard map):
 * one row per workflow, the objects each created (written before the object is), per-table copy
 * progress and per-bucket verification results. Each call opens its own short connection.
 */
final class WorkflowStore {
  private static final String[] SCHEMA = {
      "CREATE SCHEMA IF NOT EXISTS shardwise",
      """
      CREATE TABLE IF NOT EXISTS shardwise.reshard_workflow (
        id             text PRIMARY KEY,
        source         text NOT NULL,
        target         text NOT NULL,
        buckets        int[] NOT NULL,
        tables         text[] NOT NULL,
        phase          text NOT NULL,
        switched_from  text,
        publication    text NOT NULL,
        subscription   text NOT NULL,
        slot           text NOT NULL,
        lock_key       bigint NOT NULL,
        new_target     text[],
        flip_version   bigint NOT NULL DEFAULT -1,
        flipped_at     timestamptz,
        created_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
        updated_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
        last_error     text
      )""",
      """
      CREATE TABLE IF NOT EXISTS shardwise.reshard_object (
        workflow_id text NOT NULL REFERENCES shardwise.reshard_workflow (id) ON DELETE CASCADE,
        seq         bigint GENERATED ALWAYS AS IDENTITY,
        shard       text NOT NULL,
        kind        text NOT NULL,
        name        text NOT NULL,
        detail      text,
        dropped     boolean NOT NULL DEFAULT false,
        PRIMARY KEY (workflow_id, shard, kind, name)
      )""",
      """
      CREATE TABLE IF NOT EXISTS shardwise.reshard_table (
        workflow_id      text NOT NULL REFERENCES shardwise.reshard_workflow (id) ON DELETE CASCADE,
        table_name       text NOT NULL,
        rows_planned     bigint NOT NULL DEFAULT 0,
        rows_copied      bigint NOT NULL DEFAULT 0,
        state            text NOT NULL DEFAULT 'waiting',
        replica_identity text NOT NULL DEFAULT 'unchanged',
        PRIMARY KEY (workflow_id, table_name)
      )""",
      """
      CREATE TABLE IF NOT EXISTS shardwise.reshard_check (
        workflow_id text NOT NULL REFERENCES shardwise.reshard_workflow (id) ON DELETE CASCADE,
        table_name  text NOT NULL,
        bucket      int NOT NULL,
        status      text NOT NULL CHECK (status IN ('equal', 'different', 'changing')),
        row_count   bigint NOT NULL,
        keys        text,
        checked_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
        PRIMARY KEY (workflow_id, table_name, bucket)
      )"""
  };

  private final String url;
  private final String user;
  private final String password;
  private final ServerTimeouts timeouts;

  WorkflowStore(String url, String user, String password, ServerTimeouts timeouts) {
    this.url = url;
    this.user = user;
    this.password = password;
    this.timeouts = timeouts;
  }

  /**
   * Creates the tables of the moves' records unless they exist: what the first {@code start} does.
   * Reads the catalog first; DDL runs only when a table is missing.
   */
  void createSchema() {
    if (exists()) {
      return;
    }
    inTransaction("create the resharding tables", c -> {
      LockedDdl.runInTransaction(c, "shardwise.reshard", SCHEMA);
      return null;
    });
  }

  /** Whether the moves' records exist (no move was ever started here otherwise); reads the catalog only. */
  boolean exists() {
    return withConnection("look for the resharding tables", c -> Sql.exists(c, "SELECT 1 WHERE to_regclass(?) IS NOT"
        + " NULL AND to_regclass(?) IS NOT NULL AND to_regclass(?) IS NOT NULL AND to_regclass(?) IS NOT NULL",
        "shardwise.reshard_workflow", "shardwise.reshard_object", "shardwise.reshard_table", "shardwise.reshard_check"));
  }

  void insert(ReshardWorkflow w, ShardDescriptor newTarget) {
    inTransaction("record move " + w.id(), c -> {
      try (PreparedStatement ps = c.prepareStatement("""
          INSERT INTO shardwise.reshard_workflow (id, source, target, buckets, tables, phase, publication, subscription,
            slot, lock_key, new_target) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""")) {
        ps.setString(1, w.id());
        ps.setString(2, w.source());
        ps.setString(3, w.target());
        ps.setArray(4, c.createArrayOf("int4", w.buckets().toArray()));
        ps.setArray(5, c.createArrayOf("text", w.tables().stream().map(ReshardTable::spec).toArray()));
        ps.setString(6, w.phase().name());
        ps.setString(7, w.publication());
        ps.setString(8, w.subscription());
        ps.setString(9, w.slot());
        ps.setLong(10, w.lockKey());
        ps.setArray(11, newTarget == null ? null : c.createArrayOf("text", new Object[] {newTarget.primaryUrl(),
            String.join(",", newTarget.replicaUrls()), Integer.toString(newTarget.weight())}));
        ps.executeUpdate();
      }
      for (ReshardTable t : w.tables()) {
        try (PreparedStatement ps = c.prepareStatement(
            "INSERT INTO shardwise.reshard_table (workflow_id, table_name, state) VALUES (?, ?, ?)")) {
          ps.setString(1, w.id());
          ps.setString(2, t.name());
          ps.setString(3, t.isReference() ? "reference" : "waiting");
          ps.executeUpdate();
        }
      }
      return null;
    });
  }

  /** The descriptor of a target the move adds to the map, or null when the target was a shard already. */
  ShardDescriptor newTarget(String id) {
    return withConnection("read move " + id, c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT target, new_target FROM shardwise.reshard_workflow WHERE id = ?")) {
        ps.setString(1, id);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next() || rs.getArray(2) == null) {
            return null;
          }
          String[] parts = (String[]) rs.getArray(2).getArray();
          List<String> replicas = parts[1].isEmpty() ? List.of() : List.of(parts[1].split(","));
          return new ShardDescriptor(rs.getString(1), parts[0], replicas, Integer.parseInt(parts[2]), null);
        }
      }
    });
  }

  ReshardWorkflow load(String id) {
    ReshardWorkflow w = withConnection("read move " + id, c -> Sql.exists(c, "SELECT 1 WHERE to_regclass(?) IS NOT"
        + " NULL", "shardwise.reshard_workflow") ? read(c, id) : null);
    if (w == null) {
      throw new ReshardingException("No move '" + id + "' in control database " + JdbcUrls.redact(url)
          + "; list them with `shardwise reshard status`");
    }
    return w;
  }

  List<ReshardWorkflow> all() {
    return withConnection("list moves", c -> {
      List<ReshardWorkflow> out = new ArrayList<>();
      if (!Sql.exists(c, "SELECT 1 WHERE to_regclass(?) IS NOT NULL", "shardwise.reshard_workflow")) {
        return out;   // no move was ever started here
      }
      for (String id : Sql.queryTexts(c, "SELECT id FROM shardwise.reshard_workflow ORDER BY created_at DESC, id")) {
        out.add(read(c, id));
      }
      return out;
    });
  }

  /** Moves that are not over and share a shard with {@code source} or {@code target}. */
  List<String> activeTouching(String source, String target) {
    return withConnection("list active moves", c -> Sql.queryTexts(c, "SELECT id FROM shardwise.reshard_workflow "
        + "WHERE phase NOT IN ('COMPLETED', 'CANCELLED') AND (source IN (?, ?) OR target IN (?, ?)) ORDER BY id",
        source, target, source, target));
  }

  private static ReshardWorkflow read(Connection c, String id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("""
        SELECT id, source, target, buckets, tables, phase, switched_from, publication, subscription, slot, lock_key,
               flip_version, flipped_at, created_at, updated_at, last_error
          FROM shardwise.reshard_workflow WHERE id = ?""")) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return null;
        }
        Integer[] buckets = (Integer[]) rs.getArray(4).getArray();
        List<ReshardTable> tables = Arrays.stream((String[]) rs.getArray(5).getArray()).map(ReshardTable::parse)
            .toList();
        String switchedFrom = rs.getString(7);
        List<ReshardWorkflow.TableProgress> progress = new ArrayList<>();
        try (PreparedStatement pt = c.prepareStatement("SELECT table_name, rows_planned, rows_copied, state, "
            + "replica_identity FROM shardwise.reshard_table WHERE workflow_id = ? ORDER BY table_name")) {
          pt.setString(1, id);
          try (ResultSet rt = pt.executeQuery()) {
            while (rt.next()) {
              progress.add(new ReshardWorkflow.TableProgress(rt.getString(1), rt.getLong(2), rt.getLong(3),
                  rt.getString(4), rt.getString(5)));
            }
          }
        }
        return new ReshardWorkflow(rs.getString(1), rs.getString(2), rs.getString(3),
            new TreeSet<>(Arrays.asList(buckets)), tables, ReshardPhase.valueOf(rs.getString(6)),
            switchedFrom == null ? null : ReshardPhase.valueOf(switchedFrom), rs.getString(8), rs.getString(9),
            rs.getString(10), rs.getLong(11), rs.getLong(12), instant(rs.getTimestamp(13)),
            instant(rs.getTimestamp(14)), instant(rs.getTimestamp(15)), rs.getString(16), progress);
      }
    }
  }

  private static Instant instant(Timestamp t) {
    return t == null ? null : t.toInstant();
  }

  void setPhase(String id, ReshardPhase phase) {
    update("UPDATE shardwise.reshard_workflow SET phase = ?, last_error = NULL, updated_at = clock_timestamp() "
        + "WHERE id = ?", phase.name(), id);
  }

  void startSwitch(String id, ReshardPhase from) {
    update("UPDATE shardwise.reshard_workflow SET phase = 'SWITCHING_WRITES', switched_from = ?, "
        + "updated_at = clock_timestamp() WHERE id = ?", from.name(), id);
  }

  void switched(String id, long version) {
    inTransaction("record the write switch of " + id, c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE shardwise.reshard_workflow SET phase = 'WRITES_SWITCHED', "
          + "flip_version = ?, flipped_at = clock_timestamp(), updated_at = clock_timestamp(), last_error = NULL "
          + "WHERE id = ?")) {
        ps.setLong(1, version);
        ps.setString(2, id);
        ps.executeUpdate();
      }
      return null;
    });
  }

  void failed(String id, String error) {
    update("UPDATE shardwise.reshard_workflow SET last_error = ?, updated_at = clock_timestamp() WHERE id = ?",
        error, id);
  }

  void tableProgress(String id, String table, Long planned, Long copied, String state, String replicaIdentity) {
    inTransaction("record progress of " + id, c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE shardwise.reshard_table SET "
          + "rows_planned = coalesce(?, rows_planned), rows_copied = coalesce(?, rows_copied), "
          + "state = coalesce(?, state), replica_identity = coalesce(?, replica_identity) "
          + "WHERE workflow_id = ? AND table_name = ?")) {
        ps.setObject(1, planned);
        ps.setObject(2, copied);
        ps.setString(3, state);
        ps.setString(4, replicaIdentity);
        ps.setString(5, id);
        ps.setString(6, table);
        ps.executeUpdate();
      }
      return null;
    });
  }

  /** Records an object <em>before</em> it is created; returns false if it was recorded already. */
  boolean recordObject(String id, String shard, String kind, String name, String detail) {
    return withConnection("record an object of " + id, c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO shardwise.reshard_object (workflow_id, shard, kind, "
          + "name, detail) VALUES (?, ?, ?, ?, ?) ON CONFLICT (workflow_id, shard, kind, name) "
          + "DO UPDATE SET dropped = false")) {
        ps.setString(1, id);
        ps.setString(2, shard);
        ps.setString(3, kind);
        ps.setString(4, name);
        ps.setString(5, detail);
        return ps.executeUpdate() > 0;
      }
    });
  }

  /** The recorded detail of an object (e.g. the replica identity to restore), or null if not recorded. */
  String objectDetail(String id, String shard, String kind, String name) {
    return withConnection("read an object of " + id, c -> Sql.queryText(c, "SELECT coalesce(detail, '') FROM "
        + "shardwise.reshard_object WHERE workflow_id = ? AND shard = ? AND kind = ? AND name = ?", id, shard, kind,
        name));
  }

  void dropped(String id, String shard, String kind, String name) {
    update("UPDATE shardwise.reshard_object SET dropped = true WHERE workflow_id = ? AND shard = ? AND kind = ? "
        + "AND name = ?", id, shard, kind, name);
  }

  /** The objects of a move, newest first (the order to drop them in). */
  List<ReshardObject> objects(String id) {
    return withConnection("list the objects of " + id, c -> {
      List<ReshardObject> out = new ArrayList<>();
      try (PreparedStatement ps = c.prepareStatement("SELECT shard, kind, name, detail, dropped FROM "
          + "shardwise.reshard_object WHERE workflow_id = ? ORDER BY seq DESC")) {
        ps.setString(1, id);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            out.add(new ReshardObject(rs.getString(1), rs.getString(2), rs.getString(3), !rs.getBoolean(5),
                rs.getString(4)));
          }
        }
      }
      return out;
    });
  }

  void recordChecks(String id, String table, List<Object[]> rows) {
    inTransaction("record verification of " + id, c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO shardwise.reshard_check (workflow_id, table_name, "
          + "bucket, status, row_count, keys) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (workflow_id, table_name, bucket) "
          + "DO UPDATE SET status = excluded.status, row_count = excluded.row_count, keys = excluded.keys, "
          + "checked_at = clock_timestamp()")) {
        for (Object[] r : rows) {
          ps.setString(1, id);
          ps.setString(2, table);
          ps.setInt(3, (Integer) r[0]);
          ps.setString(4, (String) r[1]);
          ps.setLong(5, (Long) r[2]);
          ps.setString(6, (String) r[3]);
          ps.addBatch();
        }
        ps.executeBatch();
      }
      return null;
    });
  }

  void clearChecks(String id) {
    update("DELETE FROM shardwise.reshard_check WHERE workflow_id = ?", id);
  }

  /** (table, bucket) pairs not recorded as equal, as "table:bucket:status". */
  List<String> uncheckedOrDifferent(String id) {
    return withConnection("read verification of " + id, c -> Sql.queryTexts(c, "SELECT table_name || ':' || bucket "
        + "|| ':' || status FROM shardwise.reshard_check WHERE workflow_id = ? AND status <> 'equal' ORDER BY 1", id));
  }

  long equalChecks(String id) {
    return withConnection("read verification of " + id, c -> Sql.queryLong(c,
        "SELECT count(*) FROM shardwise.reshard_check WHERE workflow_id = ? AND status = 'equal'", id));
  }

  private void update(String sql, Object... args) {
    inTransaction("update a move's record", c -> {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        for (int i = 0; i < args.length; i++) {
          ps.setObject(i + 1, args[i]);
        }
        ps.executeUpdate();
      }
      return null;
    });
  }

  private <T> T inTransaction(String operation, Sql.Work<T> work) {
    return withConnection(operation, c -> {
      c.setAutoCommit(false);
      try {
        T result = work.apply(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    });
  }

  private <T> T withConnection(String operation, Sql.Work<T> work) {
    try (Connection c = DriverConnections.open(url, user, password, "shardwise-reshard",
        DriverConnections.timeouts(10, timeouts.socketTimeoutSeconds()))) {
      timeouts.apply(c);
      try {
        return work.apply(c);
      } catch (SQLException e) {
        throw timeouts.explain(c, e);
      }
    } catch (SQLException e) {
      throw new ReshardingException("Could not " + operation + " in control database " + JdbcUrls.redact(url) + ": "
          + e.getMessage(), e);
    }
  }

}
