package io.shardwise.testkit.internal;

import io.shardwise.testkit.Lsn;
import io.shardwise.testkit.PostgresNode;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Properties;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The part of a node that both backends share: connection details and the replication controls,
 * which are plain SQL against the server whatever runs it.
 */
public abstract class SqlControlledNode implements PostgresNode {
  private static final long POLL_MILLIS = 10;
  private static final org.postgresql.Driver DRIVER = new org.postgresql.Driver();

  private final String name;
  private final Role role;
  private final int shardIndex;

  protected SqlControlledNode(int shardIndex, Role role, int replicaIndex) {
    this.shardIndex = shardIndex;
    this.role = role;
    this.name = "shard" + shardIndex + (role == Role.PRIMARY ? "-primary" : "-replica" + replicaIndex);
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final Role role() {
    return role;
  }

  @Override
  public final int shardIndex() {
    return shardIndex;
  }

  @Override
  public String user() {
    return "postgres";
  }

  @Override
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://" + host() + ":" + port() + "/" + database;
  }

  @Override
  public DataSource dataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setServerNames(new String[] {host()});
    ds.setPortNumbers(new int[] {port()});
    ds.setDatabaseName("postgres");
    ds.setUser(user());
    ds.setConnectTimeout(10);
    return ds;
  }

  @Override
  public String toString() {
    return name + "@" + host() + ":" + port();
  }

  /** A short-lived connection for control statements. */
  protected Connection controlConnection() throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", user());
    props.setProperty("connectTimeout", "10");
    props.setProperty("socketTimeout", "60");
    props.setProperty("ApplicationName", "shardwise-testkit");
    Connection c = DRIVER.connect(jdbcUrl(), props);
    if (c == null) {
      throw new SQLException("The PostgreSQL driver did not accept " + jdbcUrl());
    }
    return c;
  }

  protected String queryString(String sql) {
    try (Connection c = controlConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    } catch (SQLException e) {
      throw new IllegalStateException(name + ": '" + sql + "' failed: " + e.getMessage(), e);
    }
  }

  private void requireRole(Role expected, String what) {
    if (role != expected) {
      throw new UnsupportedOperationException(
          what + " applies to a " + expected.name().toLowerCase() + ", but " + name + " is a "
              + role.name().toLowerCase());
    }
  }

  @Override
  public void setApplyDelay(Duration delay) {
    requireRole(Role.REPLICA, "An apply delay");
    changeSetting("recovery_min_apply_delay", delay.toMillis() + "ms", delay.toMillis() + "ms");
  }

  @Override
  public void clearApplyDelay() {
    requireRole(Role.REPLICA, "An apply delay");
    changeSetting("recovery_min_apply_delay", null, "0ms");
  }

  /**
   * ALTER SYSTEM plus a reload, then waits until fresh sessions report the new value, so that the
   * caller never races the server's configuration reload.
   */
  private void changeSetting(String setting, String value, String expectedShown) {
    String sql = value == null
        ? "ALTER SYSTEM RESET " + setting
        : "ALTER SYSTEM SET " + setting + " = '" + value + "'";
    try (Connection c = controlConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
      s.execute("SELECT pg_reload_conf()");
    } catch (SQLException e) {
      throw new IllegalStateException(name + ": '" + sql + "' failed: " + e.getMessage(), e);
    }
    String unitSql = "SELECT setting || coalesce(unit, '') FROM pg_settings WHERE name = '" + setting + "'";
    awaitCondition(() -> expectedShown.equals(queryString(unitSql)), Duration.ofSeconds(10),
        () -> setting + " to become " + expectedShown);
  }

  @Override
  public void pauseReplay() {
    requireRole(Role.REPLICA, "Pausing replay");
    queryString("SELECT pg_wal_replay_pause()");
    awaitCondition(() -> "paused".equals(queryString("SELECT pg_get_wal_replay_pause_state()")),
        Duration.ofSeconds(10), () -> "replay to pause");
  }

  @Override
  public void resumeReplay() {
    requireRole(Role.REPLICA, "Resuming replay");
    queryString("SELECT pg_wal_replay_resume()");
  }

  @Override
  public Lsn replayLsn() {
    requireRole(Role.REPLICA, "A replay LSN");
    String lsn = queryString("SELECT pg_last_wal_replay_lsn()");
    if (lsn == null) {
      throw new IllegalStateException(name + " has not replayed any WAL yet");
    }
    return Lsn.parse(lsn);
  }

  @Override
  public Lsn currentLsn() {
    requireRole(Role.PRIMARY, "A current WAL LSN");
    return Lsn.parse(queryString("SELECT pg_current_wal_lsn()"));
  }

  @Override
  public void awaitReplay(Lsn lsn, Duration timeout) {
    requireRole(Role.REPLICA, "Waiting for replay");
    awaitCondition(() -> replayLsn().isAtOrAfter(lsn), timeout, () -> "replay of " + lsn);
  }

  protected void awaitCondition(java.util.function.BooleanSupplier done, Duration timeout,
      java.util.function.Supplier<String> what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(name + ": timed out after " + timeout.toMillis() + " ms waiting for " + what.get());
      }
      try {
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(name + ": interrupted while waiting for " + what.get(), e);
      }
    }
  }
}
