package io.shardwise.hibernate.internal.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The server-side {@code lock_timeout} and {@code statement_timeout} of a connection Shardwise opens
 * for itself (the control database, an online move's connections to the shards), so that nothing it
 * runs there waits forever: behind a prepared transaction a dead process left, or a session that
 * never ends. When one of them fires, {@link #explain} names what held the lock.
 *
 * @param lockTimeoutMs how long a statement may wait for a lock (ms, at least 1)
 * @param statementTimeoutMs how long a statement may run (ms, at least 1)
 * @param settings the settings an operator changes them with, named in messages
 */
public record ServerTimeouts(long lockTimeoutMs, long statementTimeoutMs, String settings) {

  /** SQLSTATE of {@code lock_timeout} (and of {@code NOWAIT}). */
  public static final String LOCK_NOT_AVAILABLE = "55P03";

  /** SQLSTATE of {@code statement_timeout} (and of a cancel request). */
  public static final String QUERY_CANCELED = "57014";

  public ServerTimeouts {
    if (lockTimeoutMs < 1 || statementTimeoutMs < 1) {
      throw new IllegalArgumentException("Timeouts must be at least 1 ms; were lock " + lockTimeoutMs + " ms,"
          + " statement " + statementTimeoutMs + " ms");
    }
  }

  /** Sets both timeouts for the rest of {@code c}'s session (one round trip). */
  public void apply(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SET lock_timeout = " + lockTimeoutMs + "; SET statement_timeout = " + statementTimeoutMs);
    }
  }

  /** {@code c}, just opened, with both timeouts set; closed if setting them fails. */
  public Connection appliedTo(Connection c) throws SQLException {
    try {
      apply(c);
      return c;
    } catch (SQLException e) {
      c.close();
      throw e;
    }
  }

  /** A socket timeout (whole seconds, for the driver) that outlasts any statement the server lets run. */
  public long socketTimeoutSeconds() {
    return statementTimeoutMs / 1000 + 60;
  }

  /** True if {@code e} is a lock or statement timeout. */
  public static boolean isTimeout(SQLException e) {
    return LOCK_NOT_AVAILABLE.equals(e.getSQLState()) || QUERY_CANCELED.equals(e.getSQLState());
  }

  /**
   * {@code e} itself, or when it is a lock or statement timeout, an exception with the same SQLSTATE
   * whose message says which timeout fired, what held locks in that database at that moment (prepared
   * transactions by gid, long transactions by session), and what to do. Rolls back {@code c}'s failed
   * transaction first; never throws.
   */
  public SQLException explain(Connection c, SQLException e) {
    if (!isTimeout(e)) {
      return e;
    }
    String which = LOCK_NOT_AVAILABLE.equals(e.getSQLState())
        ? "waited longer than its lock timeout of " + lockTimeoutMs + " ms"
        : "ran longer than its statement timeout of " + statementTimeoutMs + " ms (or was cancelled)";
    return new SQLException(e.getMessage() + " — the statement " + which + " (" + settings + "). " + holders(c),
        e.getSQLState(), e);
  }

  /**
   * What may hold locks in {@code c}'s database: its prepared transactions and the other sessions in
   * a transaction for over a second, oldest first, with what to do about each; never throws.
   */
  static String holders(Connection c) {
    List<String> found = new ArrayList<>();
    List<String> advice = new ArrayList<>();
    try {
      if (!c.getAutoCommit()) {
        c.rollback();
      }
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
          SELECT gid, round(extract(epoch FROM now() - prepared))::bigint, owner FROM pg_prepared_xacts
          WHERE database = current_database() ORDER BY prepared""")) {
        while (rs.next()) {
          String gid = rs.getString(1);
          found.add("prepared transaction '" + gid + "' (prepared " + rs.getLong(2) + " s ago by " + rs.getString(3)
              + ")");
          advice.add(adviceFor(gid));
        }
      }
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("""
          SELECT pid, coalesce(nullif(application_name, ''), '?'), state,
                 round(extract(epoch FROM now() - xact_start))::bigint
          FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start < now() - interval '1 second'
          ORDER BY xact_start LIMIT 5""")) {
        while (rs.next()) {
          found.add("session " + rs.getLong(1) + " (" + rs.getString(2) + ", " + rs.getString(3) + ", in a transaction"
              + " for " + rs.getLong(4) + " s)");
        }
      }
    } catch (SQLException diagnosisFailed) {
      return "What holds the lock could not be read: " + diagnosisFailed.getMessage();
    }
    if (found.isEmpty()) {
      return "Nothing held a lock for long when it was looked at: run the command again.";
    }
    if (advice.size() < found.size()) {
      advice.add("end a stuck session with SELECT pg_terminate_backend(pid)");
    }
    return "Holding locks: " + String.join("; ", found) + ". What to do: "
        + String.join("; ", advice.stream().distinct().toList()) + ".";
  }

  private static String adviceFor(String gid) {
    String switchPrefix = "shardwise-switch-";
    if (gid.startsWith(switchPrefix)) {
      String move = gid.substring(switchPrefix.length());
      return "'" + gid + "' is the staged shard map change of move " + move + ", left by a mover that died during its"
          + " write switch (or its rollback): run `shardwise reshard resume " + move + "` (or status, cancel,"
          + " rollback), which rolls it back and settles the switch";
    }
    if (gid.startsWith("sw:")) {
      return "'" + gid + "' is a Shardwise cross-shard transaction in doubt: its recovery"
          + " (shards.transactions().recoverNow()) commits or rolls it back";
    }
    return "'" + gid + "' is not Shardwise's: COMMIT PREPARED or ROLLBACK PREPARED it as its owner decides";
  }
}
