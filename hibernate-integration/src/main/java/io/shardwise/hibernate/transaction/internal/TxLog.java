package io.shardwise.hibernate.transaction.internal;

import com.zaxxer.hikari.HikariDataSource;
import io.shardwise.hibernate.internal.ShardPools;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.internal.jdbc.LockedDdl;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.routing.ControlDatabaseException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The coordinator's durable memory, in the control database's {@code shardwise} schema:
 *
 * <ul>
 *   <li>{@code tx_coordinator}: one row per running coordinator, with a heartbeat, so that
 *       recovery can tell a coordinator that is gone from one that is merely slow;
 *   <li>{@code global_tx}: the decision of each two-phase transaction that reached one. The primary
 *       key on the gid makes the decision single-valued: the coordinator's COMMIT and recovery's
 *       ABORT are both {@code INSERT ... ON CONFLICT DO NOTHING}, and whichever lands first wins;
 *       the loser reads the winner's decision and follows it;
 *   <li>{@code saga} and {@code saga_step}: the saga log.
 * </ul>
 *
 * <p>Every statement runs in autocommit mode on a small pool of its own: a decision is durable
 * when {@link #decide} returns.
 */
final class TxLog implements AutoCloseable {
  private static final String[] DDL = {
      "CREATE SCHEMA IF NOT EXISTS shardwise",
      """
      CREATE TABLE IF NOT EXISTS shardwise.tx_coordinator (
        id           text PRIMARY KEY,
        unit         text NOT NULL,
        started_at   timestamptz NOT NULL DEFAULT now(),
        heartbeat_at timestamptz NOT NULL DEFAULT now()
      )""",
      """
      CREATE TABLE IF NOT EXISTS shardwise.global_tx (
        gid        text PRIMARY KEY,
        decision   text NOT NULL CHECK (decision IN ('COMMIT', 'ABORT')),
        decided_by text NOT NULL,
        shards     text[] NOT NULL,
        decided_at timestamptz NOT NULL DEFAULT now()
      )""",
      """
      CREATE TABLE IF NOT EXISTS shardwise.saga (
        id          text PRIMARY KEY,
        name        text NOT NULL,
        payload     text NOT NULL,
        state       text NOT NULL CHECK (state IN ('RUNNING', 'COMPENSATING', 'COMPLETED', 'COMPENSATED')),
        next_step   int NOT NULL DEFAULT 0,
        coordinator text NOT NULL,
        last_error  text,
        created_at  timestamptz NOT NULL DEFAULT now(),
        updated_at  timestamptz NOT NULL DEFAULT now()
      )""",
      """
      CREATE TABLE IF NOT EXISTS shardwise.saga_step (
        saga_id    text NOT NULL REFERENCES shardwise.saga (id) ON DELETE CASCADE,
        step       int NOT NULL,
        name       text NOT NULL,
        state      text NOT NULL CHECK (state IN ('DONE', 'FAILED', 'COMPENSATED')),
        attempts   int NOT NULL,
        last_error text,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (saga_id, step)
      )""",
      "CREATE INDEX IF NOT EXISTS saga_unfinished ON shardwise.saga (state) WHERE state IN ('RUNNING', 'COMPENSATING')"
  };

  enum Decision { COMMIT, ABORT }

  /** A saga row as recovery needs it. */
  record SagaRow(String id, String name, String payload, String state, int nextStep, String coordinator) {}

  private final HikariDataSource pool;
  private final String displayUrl;

  TxLog(ShardwiseConfig config) {
    this.displayUrl = JdbcUrls.redact(config.controlUrl());
    this.pool = ShardPools.newPool(config, "shardwise-txlog", config.controlUrl(),
        config.transactions().logPoolSize(), 1, config.connectionTimeoutMs(), false);
  }

  String displayUrl() {
    return displayUrl;
  }

  void createTables() {
    run("create the transaction log tables", c -> {
      LockedDdl.run(c, "shardwise.tx_log", DDL);
      return null;
    });
  }

  // --- coordinators ------------------------------------------------------------------------

  void heartbeat(String coordinatorId, String unit) {
    run("record the coordinator heartbeat", c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO shardwise.tx_coordinator (id, unit) VALUES (?, ?) "
          + "ON CONFLICT (id) DO UPDATE SET heartbeat_at = now()")) {
        ps.setString(1, coordinatorId);
        ps.setString(2, unit);
        ps.executeUpdate();
      }
      return null;
    });
  }

  void retire(String coordinatorId) {
    run("retire the coordinator", c -> {
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM shardwise.tx_coordinator WHERE id = ?")) {
        ps.setString(1, coordinatorId);
        ps.executeUpdate();
      }
      return null;
    });
  }

  /** Coordinators whose heartbeat is younger than {@code staleAfterMillis}. */
  Set<String> liveCoordinators(long staleAfterMillis) {
    return run("list live coordinators", c -> {
      Set<String> live = new HashSet<>();
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT id FROM shardwise.tx_coordinator WHERE heartbeat_at > now() - make_interval(secs => ?)")) {
        ps.setDouble(1, staleAfterMillis / 1000.0);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            live.add(rs.getString(1));
          }
        }
      }
      return live;
    });
  }

  // --- two-phase decisions -------------------------------------------------------------------

  /**
   * Records {@code wanted} for {@code gid} unless a decision is already there, and returns the
   * decision that holds — the one just written, or the earlier one.
   */
  Decision decide(String gid, Decision wanted, String by, List<String> shards) {
    return run("record the " + wanted + " decision of " + gid, c -> {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO shardwise.global_tx (gid, decision, decided_by, shards)"
          + " VALUES (?, ?, ?, ?) ON CONFLICT (gid) DO NOTHING")) {
        ps.setString(1, gid);
        ps.setString(2, wanted.name());
        ps.setString(3, by);
        ps.setArray(4, c.createArrayOf("text", shards.toArray()));
        if (ps.executeUpdate() == 1) {
          return wanted;
        }
      }
      return decisionOf(c, gid);
    });
  }

  /** The logged decision, or null. */
  Decision decision(String gid) {
    return run("read the decision of " + gid, c -> decisionOf(c, gid));
  }

  void forget(String gid) {
    run("forget " + gid, c -> {
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM shardwise.global_tx WHERE gid = ?")) {
        ps.setString(1, gid);
        ps.executeUpdate();
      }
      return null;
    });
  }

  /**
   * Deletes decisions older than the grace period whose gid no shard holds prepared any more: once
   * every participant finished, the decision is never asked for again.
   */
  int purgeDecisions(Set<String> stillPrepared, long graceMillis) {
    return update("purge settled decisions", "DELETE FROM shardwise.global_tx WHERE decided_at < now() - "
        + "make_interval(secs => ?) AND gid <> ALL (?::text[])", graceMillis / 1000.0,
        stillPrepared.toArray(new String[0]));
  }

  private static Decision decisionOf(Connection c, String gid) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT decision FROM shardwise.global_tx WHERE gid = ?")) {
      ps.setString(1, gid);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Decision.valueOf(rs.getString(1)) : null;
      }
    }
  }

  // --- sagas -----------------------------------------------------------------------------

  void sagaStarted(String id, String name, String payload, String coordinator) {
    update("log the start of saga " + id, "INSERT INTO shardwise.saga (id, name, payload, state, coordinator) "
        + "VALUES (?, ?, ?, 'RUNNING', ?)", id, name, payload, coordinator);
  }

  void sagaStep(String id, int step, String name, String state, int attempts, String error) {
    update("log step " + step + " of saga " + id, """
        INSERT INTO shardwise.saga_step (saga_id, step, name, state, attempts, last_error) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (saga_id, step) DO UPDATE SET state = excluded.state, attempts = excluded.attempts,
          last_error = excluded.last_error, updated_at = now()""", id, step, name, state, attempts, error);
  }

  void sagaState(String id, String state, int nextStep, String error) {
    update("log the state of saga " + id, "UPDATE shardwise.saga SET state = ?, next_step = ?, last_error = ?, "
        + "updated_at = now() WHERE id = ?", state, nextStep, error, id);
  }

  /** Takes over a saga from {@code from}; false if someone else took it first. */
  boolean claimSaga(String id, String from, String to) {
    return update("claim saga " + id, "UPDATE shardwise.saga SET coordinator = ?, updated_at = now() "
        + "WHERE id = ? AND coordinator = ?", to, id, from) == 1;
  }

  List<SagaRow> unfinishedSagas() {
    return run("list unfinished sagas", c -> {
      List<SagaRow> rows = new ArrayList<>();
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, name, payload, state, "
          + "next_step, coordinator FROM shardwise.saga WHERE state IN ('RUNNING', 'COMPENSATING') ORDER BY created_at")) {
        while (rs.next()) {
          rows.add(new SagaRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getInt(5),
              rs.getString(6)));
        }
      }
      return rows;
    });
  }

  SagaRow saga(String id) {
    return run("read saga " + id, c -> {
      try (PreparedStatement ps = c.prepareStatement(
          "SELECT id, name, payload, state, next_step, coordinator FROM shardwise.saga WHERE id = ?")) {
        ps.setString(1, id);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? new SagaRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
              rs.getInt(5), rs.getString(6)) : null;
        }
      }
    });
  }

  // ---------------------------------------------------------------------------------------

  private int update(String operation, String sql, Object... args) {
    return run(operation, c -> {
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        for (int i = 0; i < args.length; i++) {
          ps.setObject(i + 1, args[i] instanceof String[] array ? c.createArrayOf("text", array) : args[i]);
        }
        return ps.executeUpdate();
      }
    });
  }

  private <T> T run(String operation, SqlWork<T> work) {
    try (Connection c = pool.getConnection()) {
      return work.apply(c);
    } catch (SQLException e) {
      throw new ControlDatabaseException("Could not " + operation + " in control database " + displayUrl + ": "
          + e.getMessage(), e);
    }
  }

  @FunctionalInterface
  private interface SqlWork<T> {
    T apply(Connection c) throws SQLException;
  }

  @Override
  public void close() {
    pool.close();
  }
}
