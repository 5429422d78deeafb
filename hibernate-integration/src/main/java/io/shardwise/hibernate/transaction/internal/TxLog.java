package io.shardwise.hibernate.transaction.internal;

import com.zaxxer.hikari.HikariDataSource;
import io.shardwise.hibernate.internal.ShardPools;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.ShardwiseDdl;
import io.shardwise.hibernate.internal.jdbc.OwnObjects;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.routing.ControlDatabaseException;
import io.shardwise.hibernate.internal.jdbc.ShardConnection;
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
 *   <li>{@code saga} and {@code saga_step}: the saga log.
 * </ul>
 *
 * <p>Two-phase commit keeps no decision here: its decision is the commit of one participant's own
 * transaction (see {@link TwoPhaseCommit}), so its commit path never writes to the control database.
 * A {@code shardwise.global_tx} table left by an earlier version is no longer read.
 *
 * <p>Every statement runs in autocommit mode on a pool of its own
 * ({@code shardwise.transactions.log_pool_size} connections, default 3) whose sessions run with
 * {@code synchronous_commit = on}, whatever the server or role default: a saga's state is durable
 * when the method that writes it returns.
 */
final class TxLog implements AutoCloseable {
  /** A saga row as recovery needs it. */
  record SagaRow(String id, String name, String payload, String state, int nextStep, String coordinator) {}

  private final HikariDataSource pool;
  private final String displayUrl;

  TxLog(ShardwiseConfig config, java.util.concurrent.ScheduledExecutorService housekeeper) {
    this.displayUrl = JdbcUrls.redact(config.controlUrl());
    this.pool = ShardPools.newPool(config, "shardwise-txlog", config.controlUrl(),
        config.transactions().logPoolSize(), 1, config.controlTimeouts(), "SET synchronous_commit = on", housekeeper);
  }

  String displayUrl() {
    return displayUrl;
  }

  /**
   * Creates the log's tables when missing ({@code create}), or checks that they exist and that the
   * role may use them, failing with the SQL to run ({@link ShardwiseDdl.Feature#TRANSACTION_LOG}).
   */
  void prepareTables(boolean create) {
    run(create ? "create the transaction log tables" : "check the transaction log tables", c -> {
      OwnObjects.ensure(c, create, "the control database", ShardwiseDdl.Feature.TRANSACTION_LOG);
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
    return read("list live coordinators", c -> {
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

  /** Advances a saga driven by {@code coordinator}; false if another coordinator has taken it over. */
  boolean sagaState(String id, String coordinator, String state, int nextStep, String error) {
    return update("log the state of saga " + id, "UPDATE shardwise.saga SET state = ?, next_step = ?, last_error = ?, "
        + "updated_at = now() WHERE id = ? AND coordinator = ?", state, nextStep, error, id, coordinator) == 1;
  }

  /**
   * Takes over a saga exactly as {@code seen} shows it (owner, state and next step); false if it
   * changed since, for instance because another instance took it over or its runner moved on.
   */
  boolean claimSaga(SagaRow seen, String to) {
    return update("claim saga " + seen.id(), "UPDATE shardwise.saga SET coordinator = ?, updated_at = now() "
        + "WHERE id = ? AND coordinator = ? AND state = ? AND next_step = ?", to, seen.id(), seen.coordinator(),
        seen.state(), seen.nextStep()) == 1;
  }

  List<SagaRow> unfinishedSagas() {
    return read("list unfinished sagas", c -> {
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
    return read("read saga " + id, c -> {
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

  /**
   * A read, asked again once on a new connection when the first one turns out to be dead: after the
   * control database restarted, the pool may still hold connections that the old server ended, and a
   * read has nothing to undo. Writes are not asked again (whether one took effect is not known).
   */
  private <T> T read(String operation, SqlWork<T> work) {
    try {
      return run(operation, work);
    } catch (ControlDatabaseException e) {
      if (e.getCause() instanceof SQLException lost && ShardConnection.isConnectionLost(lost)) {
        pool.getHikariPoolMXBean().softEvictConnections();
        return run(operation, work);
      }
      throw e;
    }
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
