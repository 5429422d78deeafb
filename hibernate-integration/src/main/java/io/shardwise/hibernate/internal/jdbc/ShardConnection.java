package io.shardwise.hibernate.internal.jdbc;

import io.shardwise.hibernate.ShardUnavailableException;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.function.Supplier;

/**
 * A connection of a Hibernate session to one shard server, which turns a lost connection into a
 * {@link ShardUnavailableException} naming the shard and the server, and remembers it.
 *
 * <h2>Why here, and why it remembers</h2>
 *
 * A server that dies or ends a backend ({@code pg_terminate_backend}, a restart, a crash) while a
 * statement runs reaches Hibernate as an {@link SQLException}, which Hibernate turns into a generic
 * {@code JDBCException} that names no shard; and {@code Session.find} answers {@code null} for such
 * an exception when the transaction is already marked for rollback — "no such row" where the truth
 * is "the shard could not be asked". Here, at the JDBC boundary, the failure is still a failure of
 * one known server: it leaves as a {@code ShardUnavailableException} (not a {@code JDBCException},
 * so nothing in Hibernate swallows it), with the driver's exception and its SQLSTATE as the cause.
 *
 * <p>The connection then stays failed: every later statement, and a commit, throws again, naming
 * the first failure, so that a caller who caught the exception cannot carry on as if the unit of
 * work were whole. A rollback, and the resets Hibernate and the pool make when the connection is
 * released (auto-commit, read-only, isolation), are let through as done: the server already ended
 * the transaction when it lost the connection, and an exception from a reset would replace the one
 * the caller is being told about. A commit that fails this way has an unknown outcome, and says so.
 *
 * <p>Other errors (constraint violations, syntax, lock timeouts) pass through untouched.
 *
 * <h2>Aborted when its server is found silent</h2>
 *
 * A connection with a breaker is in that breaker's set of lent connections from its checkout to
 * its release. When a probe finds the server silent, the breaker {@link #abort(String) aborts} it
 * from another thread: the driver closes the socket, a statement blocked on it fails at once, and
 * the failure says the server stopped answering (not "timed out after 15000 ms"). HikariCP evicts
 * the connection on the driver's connection error, as it does for any lost connection.
 */
public final class ShardConnection extends ForwardingConnection {

  private final String shardId;
  private final Supplier<String> node;
  private final long socketTimeoutMs;
  private final NodeBreaker breaker;
  /** What lent the connection, for the lender to settle its return (see {@link #lender()}); may be null. */
  private final Object lender;
  /** Times each statement; null when no meter registry is configured (then no clock is read). */
  private final StatementTimer statements;
  private ShardUnavailableException failure;
  /** A unit-of-work deadline ({@link #startDeadline}): System.nanoTime() at which it passes, and its length; 0 for none. */
  private long deadlineNanos;
  private long deadlineMs;
  /** {@link #cancelStatementsAt}: System.nanoTime() when the driver cancels a statement still running; 0 for none. */
  private long cancelAtNanos;
  /**
   * A transaction is open and timed (only with a timer): it began, at {@link #transactionStarted},
   * when auto-commit was switched off or at its first statement; it ends at commit or rollback.
   */
  private boolean inTransaction;
  private long transactionStarted;
  /** Lent to a read-only session ({@link #forReadOnlySession}): its transactions are read-only whatever the server. */
  private boolean readOnlySession;
  /** Why the breaker aborted this connection ({@link #abort}), written by the aborting thread; null while it was not. */
  private volatile String abortedBecause;
  /** Aborted by {@link #abandon}: its failure says nothing about the server, and its breaker does not count it. */
  private volatile boolean abandoned;
  /** Why its work is no longer wanted ({@link #withdraw}), written by another thread; null while it is. */
  private volatile String withdrawnBecause;

  private ShardConnection(Connection target, String shardId, Supplier<String> node, long socketTimeoutMs,
      NodeBreaker breaker, StatementTimer statements, Object lender) {
    super(target);
    this.breaker = breaker;
    this.statements = statements;
    this.lender = lender;
    this.shardId = shardId;
    this.node = node;
    this.socketTimeoutMs = socketTimeoutMs;
    if (breaker != null) {
      breaker.lend(this);
    }
  }

  /**
   * @param node the server, as failure messages name it ({@code primary 10.0.0.5:5432},
   *     {@code replica 10.0.0.6:5432}); asked only when a failure happens
   */
  public static Connection wrap(Connection target, String shardId, Supplier<String> node) {
    return new ShardConnection(target, shardId, node, 0, null, null, null);
  }

  /**
   * The same, for a connection whose driver gives up on a silent server after
   * {@code socketTimeoutMs}: such a failure says "timed out after N ms".
   */
  public static Connection wrap(Connection target, String shardId, Supplier<String> node, long socketTimeoutMs) {
    return new ShardConnection(target, shardId, node, socketTimeoutMs, null, null, null);
  }

  /**
   * The same, reporting to the server's circuit breaker (when not null): a lost or timed-out
   * connection is a failure, a unit of work closed without one a success.
   */
  public static Connection wrap(Connection target, String shardId, Supplier<String> node, long socketTimeoutMs,
      NodeBreaker breaker) {
    return new ShardConnection(target, shardId, node, socketTimeoutMs, breaker, null, null);
  }

  /** The same, timing every statement with {@code statements} (null: nothing is timed). */
  public static Connection wrap(Connection target, String shardId, Supplier<String> node, long socketTimeoutMs,
      NodeBreaker breaker, StatementTimer statements) {
    return new ShardConnection(target, shardId, node, socketTimeoutMs, breaker, statements, null);
  }

  /**
   * The same, naming the server in failure messages as its (non-null) breaker does: nothing is
   * allocated for the name on the way in.
   */
  public static Connection wrap(Connection target, String shardId, long socketTimeoutMs, NodeBreaker breaker) {
    return new ShardConnection(target, shardId, null, socketTimeoutMs, breaker, null, null);
  }

  /** The same, timing every statement with {@code statements} (null: nothing is timed). */
  public static Connection wrap(Connection target, String shardId, long socketTimeoutMs, NodeBreaker breaker,
      StatementTimer statements) {
    return new ShardConnection(target, shardId, null, socketTimeoutMs, breaker, statements, null);
  }

  /**
   * The same, remembering what lent the connection (a pool that counts its sessions), so that the
   * return is settled without looking the lender up again.
   */
  public static Connection wrap(Connection target, String shardId, long socketTimeoutMs, NodeBreaker breaker,
      StatementTimer statements, Object lender) {
    return new ShardConnection(target, shardId, null, socketTimeoutMs, breaker, statements, lender);
  }

  /**
   * Marks {@code c} (a connection from {@link #wrap}; others are returned unchanged) as lent to a
   * read-only session, so that its transactions are timed as read-only also when the primary serves
   * them (its connection is not switched to read-only).
   */
  public static Connection forReadOnlySession(Connection c) {
    if (c instanceof ShardConnection shard) {
      shard.readOnlySession = true;
    }
    return c;
  }

  /**
   * The transaction of {@code c} (a connection from {@link #wrap}; others are left alone) was just
   * prepared ({@code PREPARE TRANSACTION}): it is timed now as prepared, and the rollback that ends
   * the session's own transaction afterwards is not timed again.
   */
  public static void transactionPrepared(Connection c) {
    if (c instanceof ShardConnection shard && shard.inTransaction) {
      shard.transactionEnded(StatementTimer.TransactionOutcome.PREPARED);
    }
  }

  /** What lent this connection, as given to {@link #wrap(Connection, String, long, NodeBreaker, StatementTimer, Object)}; else null. */
  public Object lender() {
    return lender;
  }

  /** The server as failure messages name it. */
  private String server() {
    return node != null ? node.get() : breaker.node();
  }

  /** Whether the driver gave up waiting for the server: a socket read timed out. */
  public static boolean isTimeout(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof java.net.SocketTimeoutException) {
        return true;
      }
    }
    return false;
  }

  /** The connection a {@link #wrap wrapped} one stands for; any other connection unchanged. */
  public static Connection unwrapped(Connection connection) {
    return connection instanceof ShardConnection shard ? shard.target : connection;
  }

  /**
   * Whether an exception means the connection to the server is gone: SQLSTATE class 08
   * (connection exception), 57P01–57P03 and 57P05 (the server ended the session: administrator
   * command, crash, not accepting connections, idle timeout), 25P03 (idle-in-transaction timeout,
   * which also ends the session).
   */
  public static boolean isConnectionLost(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        if (state.startsWith("08") || state.equals("57P01") || state.equals("57P02") || state.equals("57P03")
            || state.equals("57P05") || state.equals("25P03")) {
          return true;
        }
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /**
   * Closes the socket beneath without waiting for the server (pgjdbc's {@code abort}), from any
   * thread: a statement running on it fails at once, and so does every later call. False when it
   * was aborted before.
   *
   * @param why what the probe saw, for the message the caller gets
   */
  boolean abort(String why) {
    if (abortedBecause != null) {
      return false;
    }
    abortedBecause = why;
    try {
      target.abort(Runnable::run);
    } catch (SQLException | RuntimeException alreadyClosed) {
      // returned to its pool a moment ago: the pool's proxy no longer reaches the socket
    }
    return true;
  }

  /**
   * What a read-only session's connection provider hands back to the read path: {@code c} leaves its
   * breaker's lent set (a connection from {@link #wrap}; any other is returned unchanged), and the
   * connection it stands for is returned.
   */
  public static Connection released(Connection c) {
    if (c instanceof ShardConnection shard) {
      if (shard.breaker != null) {
        shard.breaker.giveBack(shard);
      }
      return shard.target;
    }
    return c;
  }

  /**
   * Aborts {@code c} (a connection from {@link #wrap}; others are left alone) because its work is no
   * longer wanted — a hedged read answered elsewhere first — not because its server failed: the
   * caller inside a statement on it fails at once, and the server's breaker does not count that.
   * Returns the driver connection beneath (for a cancel request to the server), or null.
   */
  public static org.postgresql.core.BaseConnection abandon(Connection c, String why) {
    if (!(c instanceof ShardConnection shard)) {
      return null;
    }
    org.postgresql.core.BaseConnection driver;
    try {
      driver = shard.target.unwrap(org.postgresql.core.BaseConnection.class);
    } catch (SQLException | RuntimeException closedOrOther) {
      driver = null; // returned to its pool already: nothing runs on it for this work any more
    }
    shard.abandoned = true;
    shard.abort(why);
    return driver;
  }

  /**
   * Withdraws {@code c} (a connection from {@link #wrap}) from work that is no longer wanted — a
   * hedged read answered elsewhere first — but keeps the connection: from now on every statement on
   * it fails at once without reaching the server; the statement running now, once the server
   * cancels it (SQLSTATE 57014), fails with the same {@link ShardUnavailableException} instead of
   * the driver's error; none of this counts for the server's breaker, as a failure or as a success;
   * and the rollback and the pool's resets still go to the server, so that the connection goes back
   * to its pool healthy. Any other error on it afterwards (the server lost, a rollback that fails)
   * aborts it, and the pool drops it.
   *
   * <p>Returns the driver connection beneath, for the caller to send the server its cancel request;
   * null, withdrawing nothing, when {@code c} is not from {@link #wrap}, was aborted, or its server's
   * breaker is not closed (the server failed lately: {@link #abandon} the connection instead).
   */
  public static org.postgresql.core.BaseConnection withdraw(Connection c, String why) {
    if (!(c instanceof ShardConnection shard) || shard.abortedBecause != null
        || (shard.breaker != null && shard.breaker.state() != io.shardwise.hibernate.BreakerState.CLOSED)) {
      return null;
    }
    org.postgresql.core.BaseConnection driver;
    try {
      driver = shard.target.unwrap(org.postgresql.core.BaseConnection.class);
    } catch (SQLException | RuntimeException closedOrOther) {
      return null;
    }
    shard.withdrawnBecause = why;
    return driver;
  }

  /** The failure of every call on a {@link #withdraw withdrawn} connection: nobody waits for its answer. */
  private ShardUnavailableException withdrawn(String action) {
    String server = server();
    return new ShardUnavailableException("Shard '" + shardId + "': stopped " + action + " on its " + server + " because "
        + withdrawnBecause + "; this attempt's result is not used (its statement was cancelled on the server, and the"
        + " connection kept).", shardId, server, null);
  }

  /** Whether {@code c} (a connection from {@link #wrap}) was aborted because its server was found silent. */
  public static boolean wasAborted(Connection c) {
    return c instanceof ShardConnection shard && shard.abortedBecause != null;
  }

  // --- failure handling -----------------------------------------------------------------------

  /**
   * Starts a unit-of-work deadline of {@code ms} on a connection from {@link #wrap} (others are left
   * alone): from now on every statement and the commit must start before it, and no read from the
   * server waits past it.
   */
  public static void startDeadline(Connection c, long ms) throws SQLException {
    if (c instanceof ShardConnection shard) {
      shard.deadlineMs = ms;
      shard.deadlineNanos = System.nanoTime() + ms * 1_000_000;
      shard.target.setNetworkTimeout(Runnable::run, (int) ms);
    }
  }

  /**
   * Has the driver cancel, on the server, any statement of this connection (a connection from
   * {@link #wrap}; others are left alone) still running at {@code deadlineNanos} (a
   * {@link System#nanoTime()} value): pgjdbc's query timeout, in milliseconds, set on each statement
   * as it is created. It costs no round trip, where {@code SET LOCAL statement_timeout} costs one and
   * needs a transaction; but it covers only a statement's execution, not the later fetches of a
   * cursor, so a statement that reads its rows through a cursor needs the server's own timeout.
   */
  public static void cancelStatementsAt(Connection c, long deadlineNanos) {
    if (c instanceof ShardConnection shard) {
      shard.cancelAtNanos = deadlineNanos;
    }
  }

  /** {@code statement} with the query timeout of {@link #cancelStatementsAt}, when one is set. */
  <S extends Statement> S timed(S statement) throws SQLException {
    if (cancelAtNanos != 0) {
      long leftMs = Math.max(1, (cancelAtNanos - System.nanoTime() + 999_999) / 1_000_000);
      statement.unwrap(org.postgresql.jdbc.PgStatement.class).setQueryTimeoutMs(leftMs);
    }
    return statement;
  }

  /** Throws when the unit of work's deadline has passed; else no read waits past it. */
  private void requireBeforeDeadline(String action) throws SQLException {
    long leftNanos = deadlineNanos - System.nanoTime();
    if (leftNanos <= 0) {
      String server = server();
      failure = new ShardUnavailableException("Shard '" + shardId + "': the unit of work timed out after "
          + deadlineMs + " ms (its deadline) before it could " + action + " on its " + server + ". Nothing of this"
          + " unit of work since its last commit was kept; retry it, or give it a longer deadline.", shardId, server,
          new java.sql.SQLTimeoutException("deadline of " + deadlineMs + " ms passed", "57014"));
      // what the pool's rollback on return sends must not wait on a server that may be silent
      target.setNetworkTimeout(Runnable::run, 1);
      throw failure;
    }
    target.setNetworkTimeout(Runnable::run, (int) Math.max(1, (leftNanos + 999_999) / 1_000_000));
  }

  /**
   * {@link System#nanoTime()} as a statement starts, or 0 when statements are not timed (no clock
   * read). A statement outside auto-commit begins the timed transaction when none is open.
   */
  long statementStarted() {
    if (statements == null) {
      return 0;
    }
    long now = System.nanoTime();
    if (!inTransaction && !autoCommitOrUnknown()) {
      inTransaction = true;
      transactionStarted = now;
    }
    return now;
  }

  private boolean autoCommitOrUnknown() {
    try {
      return target.getAutoCommit();
    } catch (SQLException e) {
      return true; // a closed or broken connection: its statement fails, and no transaction is timed
    }
  }

  /**
   * Times the open transaction (there is one: {@link #inTransaction}) as ended with {@code outcome},
   * read-only when the connection is (a replica's always is).
   */
  private void transactionEnded(StatementTimer.TransactionOutcome outcome) {
    inTransaction = false;
    boolean readOnly = readOnlySession;
    if (!readOnly) {
      try {
        readOnly = target.isReadOnly(); // set by the pool (a replica's), or by Spring for @Transactional(readOnly = true)
      } catch (SQLException e) {
        // a lost connection: left read-write; the timer's role still tags a replica's as read-only
      }
    }
    statements.transaction(System.nanoTime() - transactionStarted, readOnly, outcome);
  }

  /** A statement begun at {@code started} ({@link #statementStarted}) returned or threw. */
  void statementEnded(StatementTimer.Operation operation, long started, boolean failed) {
    if (statements != null && withdrawnBecause == null) {
      statements.record(operation, System.nanoTime() - started, failed);
    }
  }

  /** Throws when an earlier failure ended this connection, or when its unit of work's deadline has passed. */
  void requireAlive(String action) throws SQLException {
    if (withdrawnBecause != null) {
      throw withdrawn(action);
    }
    if (failure == null && abortedBecause != null) {
      String server = server();
      failure = new ShardUnavailableException("Cannot " + action + " on shard '" + shardId + "': its " + server
          + " stopped answering (" + abortedBecause + "), so Shardwise closed the connection. Its transaction can"
          + " never commit; nothing of this unit of work since its last commit was kept. Other shards are"
          + " unaffected; retry when the server is back.", shardId, server,
          new SQLException("aborted: " + abortedBecause, "08003"));
      throw failure;
    }
    if (deadlineNanos != 0 && failure == null) {
      requireBeforeDeadline(action);
    }
    if (failure != null) {
      throw new ShardUnavailableException("Cannot " + action + " on shard '" + shardId + "': its connection to the "
          + failure.node() + " was lost earlier in this session (" + failure.sqlState() + ": "
          + failure.getCause().getMessage() + "). The server ended that connection's transaction, so nothing of"
          + " this unit of work since its last commit was kept; start it again in a new session.",
          shardId, failure.node(), failure.getCause());
    }
  }

  /** The exception to throw for {@code e}: a recorded {@link ShardUnavailableException} when the connection is lost. */
  SQLException translate(SQLException e, String action) {
    if (withdrawnBecause != null) {
      boolean cancelledStatement = ServerTimeouts.QUERY_CANCELED.equals(e.getSQLState())
          && (action.equals("running a statement") || action.equals("reading results"));
      if (!cancelledStatement) {
        abandoned = true;
        abort(withdrawnBecause);
      }
      throw withdrawn(action);
    }
    String aborted = abortedBecause;
    if (aborted == null && !isConnectionLost(e)) {
      return e;
    }
    String server = server();
    String what = abandoned
        ? "another node answered this hedged read first, so Shardwise closed the connection to its " + server
        : aborted != null
        ? "its " + server + " stopped answering (" + aborted + "), so Shardwise closed the connection instead of"
            + " waiting for the socket timeout (SQLSTATE " + e.getSQLState() + ": " + e.getMessage() + ")"
        : isTimeout(e) && deadlineNanos != 0 && System.nanoTime() - deadlineNanos >= 0
        ? "its " + server + " did not answer: timed out after " + deadlineMs + " ms (the unit of work's deadline; SQLSTATE "
            + e.getSQLState() + ": " + e.getMessage() + "; the connection is closed)"
        : isTimeout(e)
        ? "its " + server + " did not answer: timed out after " + socketTimeoutMs + " ms (the socket timeout; SQLSTATE "
            + e.getSQLState() + ": " + e.getMessage() + "; the connection is closed)"
        : "the connection to its " + server + " was lost (SQLSTATE " + e.getSQLState() + ": " + e.getMessage() + ")";
    ShardUnavailableException lost = new ShardUnavailableException("Shard '" + shardId + "' failed while "
        + action + ": " + what + ". " + (action.equals("committing")
            ? "The commit's outcome is unknown: the server may have committed before the connection broke. Check"
                + " for the effect before retrying."
            : aborted != null || isTimeout(e)
                ? "The connection was closed, so its transaction can never commit; nothing of this unit of work since"
                    + " its last commit was kept. Other shards are unaffected; retry when the server is back."
                : "The server ended the connection's transaction; nothing of this unit of work since its last commit"
                    + " was kept. Other shards are unaffected; retry when the server is back.")
        + "", shardId, server, e);
    if (failure == null) {
      failure = lost;
      if (breaker != null && !abandoned) {
        breaker.failed(false, what);
      }
    }
    throw lost;
  }

  // --- transaction control ---------------------------------------------------------------------

  @Override
  public void commit() throws SQLException {
    boolean committed = false;
    try {
      requireAlive("commit");
      try {
        target.commit();
      } catch (SQLException e) {
        throw translate(e, "committing");
      }
      committed = true;
    } finally {
      if (inTransaction) {
        transactionEnded(committed ? StatementTimer.TransactionOutcome.COMMITTED
            : StatementTimer.TransactionOutcome.FAILED);
      }
    }
  }

  /** Lost, timed out or aborted: the server ended (or will end) its transaction, and resets are moot. */
  private boolean broken() {
    return failure != null || abortedBecause != null;
  }

  @Override
  public void rollback() throws SQLException {
    if (broken()) {
      if (inTransaction) {
        transactionEnded(StatementTimer.TransactionOutcome.FAILED);
      }
      return; // the server rolled the transaction back when it lost the connection
    }
    boolean rolledBack = false;
    try {
      target.rollback();
      rolledBack = true;
    } catch (SQLException e) {
      throw translate(e, "rolling back");
    } finally {
      if (inTransaction) {
        transactionEnded(rolledBack ? StatementTimer.TransactionOutcome.ROLLED_BACK
            : StatementTimer.TransactionOutcome.FAILED);
      }
    }
  }

  @Override
  public void rollback(Savepoint savepoint) throws SQLException {
    requireAlive("roll back to a savepoint");
    try {
      target.rollback(savepoint);
    } catch (SQLException e) {
      throw translate(e, "rolling back to a savepoint");
    }
  }

  @Override
  public void setAutoCommit(boolean autoCommit) throws SQLException {
    if (broken() && autoCommit) {
      if (inTransaction) {
        transactionEnded(StatementTimer.TransactionOutcome.FAILED);
      }
      return; // what a pool does on return; the connection is dead either way
    }
    if (!autoCommit || withdrawnBecause == null) { // a withdrawn connection's reset on release goes to the server
      requireAlive("begin a transaction");
    }
    try {
      target.setAutoCommit(autoCommit);
    } catch (SQLException e) {
      throw translate(e, "setting auto-commit");
    }
    if (statements != null) {
      if (!autoCommit && !inTransaction) {
        inTransaction = true; // the transaction begins
        transactionStarted = System.nanoTime();
      } else if (autoCommit && inTransaction) {
        transactionEnded(StatementTimer.TransactionOutcome.COMMITTED); // JDBC: switching auto-commit on commits
      }
    }
  }

  @Override
  public Savepoint setSavepoint() throws SQLException {
    requireAlive("set a savepoint");
    try {
      return target.setSavepoint();
    } catch (SQLException e) {
      throw translate(e, "setting a savepoint");
    }
  }

  @Override
  public Savepoint setSavepoint(String name) throws SQLException {
    requireAlive("set a savepoint");
    try {
      return target.setSavepoint(name);
    } catch (SQLException e) {
      throw translate(e, "setting a savepoint");
    }
  }

  @Override
  public void releaseSavepoint(Savepoint savepoint) throws SQLException {
    requireAlive("release a savepoint");
    try {
      target.releaseSavepoint(savepoint);
    } catch (SQLException e) {
      throw translate(e, "releasing a savepoint");
    }
  }

  @Override
  public void setTransactionIsolation(int level) throws SQLException {
    if (broken()) {
      return; // a reset on release; the connection is dead either way
    }
    try {
      target.setTransactionIsolation(level);
    } catch (SQLException e) {
      throw translate(e, "setting the isolation level");
    }
  }

  @Override
  public void setReadOnly(boolean readOnly) throws SQLException {
    if (broken()) {
      return; // a reset on release: throwing here would hide the failure the caller is being told about
    }
    try {
      target.setReadOnly(readOnly);
    } catch (SQLException e) {
      throw translate(e, "setting the connection read-only");
    }
  }

  // --- statements ------------------------------------------------------------------------------

  @Override
  public Statement createStatement() throws SQLException {
    requireAlive("run a statement");
    return new ShardStatement<>(this, timed(target.createStatement()));
  }

  @Override
  public Statement createStatement(int resultSetType, int resultSetConcurrency) throws SQLException {
    requireAlive("run a statement");
    return new ShardStatement<>(this, timed(target.createStatement(resultSetType, resultSetConcurrency)));
  }

  @Override
  public Statement createStatement(int resultSetType, int resultSetConcurrency, int resultSetHoldability)
      throws SQLException {
    requireAlive("run a statement");
    return new ShardStatement<>(this, timed(target.createStatement(resultSetType, resultSetConcurrency,
        resultSetHoldability)));
  }

  @Override
  public PreparedStatement prepareStatement(String sql) throws SQLException {
    requireAlive("run a statement");
    return new ShardPreparedStatement(this, timed(target.prepareStatement(sql)));
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency)
      throws SQLException {
    requireAlive("run a statement");
    return new ShardPreparedStatement(this, timed(target.prepareStatement(sql, resultSetType, resultSetConcurrency)));
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency,
      int resultSetHoldability) throws SQLException {
    requireAlive("run a statement");
    return new ShardPreparedStatement(this, timed(target.prepareStatement(sql, resultSetType, resultSetConcurrency,
        resultSetHoldability)));
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int autoGeneratedKeys) throws SQLException {
    requireAlive("run a statement");
    return new ShardPreparedStatement(this, timed(target.prepareStatement(sql, autoGeneratedKeys)));
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int[] columnIndexes) throws SQLException {
    requireAlive("run a statement");
    return new ShardPreparedStatement(this, timed(target.prepareStatement(sql, columnIndexes)));
  }

  @Override
  public PreparedStatement prepareStatement(String sql, String[] columnNames) throws SQLException {
    requireAlive("run a statement");
    return new ShardPreparedStatement(this, timed(target.prepareStatement(sql, columnNames)));
  }

  @Override
  public CallableStatement prepareCall(String sql) throws SQLException {
    requireAlive("run a statement");
    return ShardStatement.callable(this, target.prepareCall(sql));
  }

  @Override
  public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency) throws SQLException {
    requireAlive("run a statement");
    return ShardStatement.callable(this, target.prepareCall(sql, resultSetType, resultSetConcurrency));
  }

  @Override
  public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency,
      int resultSetHoldability) throws SQLException {
    requireAlive("run a statement");
    return ShardStatement.callable(this, target.prepareCall(sql, resultSetType, resultSetConcurrency,
        resultSetHoldability));
  }

  // --- closing, metadata, validity, unwrapping (the rest is ForwardingConnection's pass-through) ---

  @Override
  public void close() throws SQLException {
    if (inTransaction) { // the pool rolls it back
      transactionEnded(broken() ? StatementTimer.TransactionOutcome.FAILED
          : StatementTimer.TransactionOutcome.ROLLED_BACK);
    }
    if (breaker != null) {
      breaker.giveBack(this);
      if (failure == null && abortedBecause == null && withdrawnBecause == null) {
        breaker.succeeded();
      }
    }
    try {
      target.close();
    } catch (SQLException e) {
      if (abortedBecause == null) {
        throw e;
      }
      // the pool's reset of an aborted connection fails; the pool evicts it, and the caller knows why
    }
  }

  @Override
  public DatabaseMetaData getMetaData() throws SQLException {
    requireAlive("read database metadata");
    try {
      return target.getMetaData();
    } catch (SQLException e) {
      throw translate(e, "reading database metadata");
    }
  }

  @Override
  public boolean isValid(int timeout) throws SQLException {
    return failure == null && target.isValid(timeout);
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    if (type.isInstance(this)) {
      return type.cast(this);
    }
    return target.unwrap(type);
  }

  @Override
  public boolean isWrapperFor(Class<?> type) throws SQLException {
    return type.isInstance(this) || target.isWrapperFor(type);
  }

  @Override
  public String toString() {
    return "ShardConnection[" + shardId + ", " + target + "]";
  }
}
