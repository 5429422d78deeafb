package io.shardwise.hibernate.internal.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * DDL that several application instances may run at the same moment at start-up. {@code CREATE ...
 * IF NOT EXISTS} is not safe against itself: two sessions can both find the table missing, and the
 * second fails on the catalog's unique index. Each piece of DDL here runs under a transaction-scoped
 * PostgreSQL advisory lock named after what it creates, so concurrent creators take turns and the
 * later ones find everything in place.
 *
 * <p>DDL waits at most {@value #LOCK_TIMEOUT_MS} ms for a lock (the advisory lock, and the table
 * locks the DDL needs: a table in use by a long or prepared transaction cannot be altered) and runs
 * at most {@value #STATEMENT_TIMEOUT_MS} ms per statement; a timeout fails with the holders named.
 * Callers read the catalog first and run DDL only for what is missing.
 */
public final class LockedDdl {
  private LockedDdl() {}

  /** How long DDL waits for a lock (ms). */
  public static final long LOCK_TIMEOUT_MS = 10_000;

  /** How long one DDL statement may run (ms). */
  public static final long STATEMENT_TIMEOUT_MS = 60_000;

  private static final ServerTimeouts TIMEOUTS = new ServerTimeouts(LOCK_TIMEOUT_MS, STATEMENT_TIMEOUT_MS,
      "LockedDdl's fixed limits for Shardwise's own DDL");

  /**
   * Runs {@code statements} in a transaction of its own on {@code c}, under the advisory lock
   * {@code lockName}; commits, or rolls back and rethrows. The connection's auto-commit mode is
   * restored afterwards.
   */
  public static void run(Connection c, String lockName, String... statements) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try {
      runInTransaction(c, lockName, statements);
      c.commit();
    } catch (SQLException e) {
      c.rollback();
      throw TIMEOUTS.explain(c, e);
    } catch (RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(autoCommit);
    }
  }

  /**
   * Takes the advisory lock {@code lockName} in the transaction open on {@code c} (held until that
   * transaction ends, so what the caller does next is serialized too) and runs {@code statements}.
   * The caller commits.
   */
  public static void runInTransaction(Connection c, String lockName, String... statements) throws SQLException {
    if (c.getAutoCommit()) {
      throw new IllegalStateException("LockedDdl.runInTransaction needs an open transaction: in auto-commit mode"
          + " the advisory lock on '" + lockName + "' would be released before the DDL runs");
    }
    // schema changes are not point lookups: the pool's statement, lock and socket timeouts give way
    // to DDL's own (the pool restores its socket timeout on return)
    c.setNetworkTimeout(Runnable::run, (int) (TIMEOUTS.socketTimeoutSeconds() * 1000));
    try (Statement s = c.createStatement()) {
      s.execute("SET LOCAL statement_timeout = " + STATEMENT_TIMEOUT_MS + "; SET LOCAL lock_timeout = "
          + LOCK_TIMEOUT_MS);
    }
    try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))")) {
      lock.setString(1, "shardwise.ddl:" + lockName);
      lock.execute();
    }
    try (Statement s = c.createStatement()) {
      for (String ddl : statements) {
        s.execute(ddl);
      }
    }
  }
}
