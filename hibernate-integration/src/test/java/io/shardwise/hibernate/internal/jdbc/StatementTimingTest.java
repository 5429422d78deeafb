package io.shardwise.hibernate.internal.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The statement timing of {@link ShardConnection}'s statements, against a driver stand-in (what the
 * timer sees and costs, not what a server does; {@code MetricsTest} covers that on PostgreSQL).
 * Without a timer a statement must allocate nothing: measured by the thread's allocated bytes.
 */
class StatementTimingTest {
  private static final int CALLS = 200_000;

  @Test
  void withoutATimerAStatementAllocatesNothing() throws SQLException {
    PreparedStatement statement = ShardConnection.wrap(driver(false), "s0", 0, breaker(), null)
        .prepareStatement("update t set x = 1");
    long bytes = allocatedBy(statement);
    assertTrue(bytes < CALLS / 100, "without a timer, " + CALLS + " executeUpdate calls allocated " + bytes
        + " bytes; the untimed path must allocate nothing");
  }

  @Test
  void aTimerAllocatesNothingEither() throws SQLException {
    long[] recorded = new long[2];
    StatementTimer timer = (operation, nanos, failed) -> recorded[failed ? 1 : 0] += nanos >= 0 ? 1 : 0;
    PreparedStatement statement = ShardConnection.wrap(driver(false), "s0", 0, breaker(), timer)
        .prepareStatement("update t set x = 1");
    long bytes = allocatedBy(statement);
    assertTrue(bytes < CALLS / 100, "with a timer, " + CALLS + " executeUpdate calls allocated " + bytes + " bytes");
    assertEquals(2L * CALLS, recorded[0], "every call timed once (warm-up and measured loops)");
  }

  @Test
  void eachOperationIsTimedUnderItsKindAndAFailureAsOne() throws SQLException {
    List<String> seen = new ArrayList<>();
    StatementTimer timer = (operation, nanos, failed) -> seen.add(operation.tag() + (failed ? " failed" : ""));
    Connection ok = ShardConnection.wrap(driver(false), "s0", 0, breaker(), timer);
    PreparedStatement p = ok.prepareStatement("select 1");
    p.executeQuery();
    p.executeUpdate();
    p.executeBatch();
    p.execute();
    ok.createStatement().executeQuery("select 1");
    ok.createStatement().executeLargeUpdate("update t set x = 1");
    assertEquals(List.of("query", "update", "batch", "execute", "query", "update"), seen);

    seen.clear();
    PreparedStatement failing = ShardConnection.wrap(driver(true), "s0", 0, breaker(), timer)
        .prepareStatement("update t set x = 1");
    assertThrows(SQLException.class, failing::executeUpdate);
    assertEquals(List.of("update failed"), seen);
  }

  /**
   * A transaction is timed once, from auto-commit switched off (or the first statement outside
   * auto-commit) to its commit or rollback; a connection closed inside one times it as rolled back;
   * statements in auto-commit are no transaction.
   */
  @Test
  void eachTransactionIsTimedOnceFromItsBeginToItsEnd() throws SQLException {
    List<String> seen = new ArrayList<>();
    StatementTimer timer = new StatementTimer() {
      @Override
      public void record(Operation operation, long nanos, boolean failed) {}

      @Override
      public void transaction(long nanos, boolean readOnly, TransactionOutcome outcome) {
        seen.add(outcome.tag() + (readOnly ? " read-only" : ""));
      }
    };
    Connection c = ShardConnection.wrap(driver(false), "s0", 0, breaker(), timer);
    PreparedStatement p = c.prepareStatement("update t set x = 1");
    p.executeUpdate();
    assertEquals(List.of(), seen, "a statement in auto-commit is no transaction");
    c.setAutoCommit(false);
    p.executeUpdate();
    c.commit();
    c.commit();
    assertEquals(List.of("committed"), seen, "a commit with nothing begun since times nothing");
    p.executeUpdate(); // outside auto-commit, the first statement begins the next one
    c.rollback();
    c.setAutoCommit(true);
    c.setAutoCommit(false);
    c.setAutoCommit(true); // JDBC: switching auto-commit on commits
    c.setAutoCommit(false);
    p.executeUpdate();
    c.close();
    assertEquals(List.of("committed", "rolled-back", "committed", "rolled-back"), seen);

    seen.clear();
    Connection reads = ShardConnection.forReadOnlySession(ShardConnection.wrap(driver(false), "s0", 0, breaker(),
        timer));
    reads.setAutoCommit(false);
    reads.commit();
    assertEquals(List.of("committed read-only"), seen, "a read-only session's transaction is read-only");

    seen.clear();
    Connection failing = ShardConnection.wrap(driver(true), "s0", 0, breaker(), timer);
    failing.setAutoCommit(false);
    ShardConnection.transactionPrepared(failing);
    failing.rollback();
    assertEquals(List.of("prepared"), seen, "a prepared transaction is timed once, as prepared");
  }

  /**
   * Without a timer, a transaction (auto-commit off, a statement, commit, auto-commit on) through the
   * wrapper allocates no more than the same calls made on the driver stand-in directly. The stand-in
   * answers these calls without a proxy: a proxy allocates each call's argument array, which the JIT
   * removes only where it inlines the call (CI on JDK 25 once counted
   * 48 bytes per transaction, two {@code setAutoCommit} argument arrays, as the wrapper's).
   */
  @Test
  void withoutATimerATransactionAllocatesNothingMore() throws SQLException {
    Connection raw = new TransactionStandIn(driver(false));
    Connection wrapped = ShardConnection.wrap(new TransactionStandIn(driver(false)), "s0", 0, breaker(), null);
    long direct = allocatedByTransactions(raw, raw.prepareStatement("update t set x = 1"));
    long through = allocatedByTransactions(wrapped, wrapped.prepareStatement("update t set x = 1"));
    assertTrue(through - direct < CALLS / 100, "without a timer, " + CALLS + " transactions allocated " + through
        + " bytes through the wrapper, " + direct + " on the driver alone; the untimed path must allocate nothing");
  }

  private static long allocatedByTransactions(Connection c, PreparedStatement statement) throws SQLException {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long id = Thread.currentThread().getId();
    long least = Long.MAX_VALUE;
    long sink = 0;
    // the least of several rounds: the JIT removes the allocations it can at its own pace (one
    // warm-up round was not always enough on JDK 25)
    for (int round = 0; round < 4; round++) {
      long before = threads.getThreadAllocatedBytes(id);
      for (int i = 0; i < CALLS; i++) {
        c.setAutoCommit(false);
        sink += statement.executeUpdate();
        c.commit();
        c.setAutoCommit(true);
      }
      least = Math.min(least, threads.getThreadAllocatedBytes(id) - before);
    }
    assertEquals(4L * CALLS, sink);
    return least;
  }

  /** Bytes this thread allocated over {@link #CALLS} calls, after as many to warm up. */
  private static long allocatedBy(PreparedStatement statement) throws SQLException {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long id = Thread.currentThread().getId();
    long sink = 0;
    for (int i = 0; i < CALLS; i++) {
      sink += statement.executeUpdate();
    }
    long before = threads.getThreadAllocatedBytes(id);
    for (int i = 0; i < CALLS; i++) {
      sink += statement.executeUpdate();
    }
    long after = threads.getThreadAllocatedBytes(id);
    assertEquals(2L * CALLS, sink);
    return after - before;
  }

  private static NodeBreaker breaker() {
    return new NodeBreaker("s0", "primary db0:5432", 5, 1_000, 1_000);
  }

  /** The transaction calls answered in place, allocating nothing; every other call goes to {@code rest}. */
  private static final class TransactionStandIn extends ForwardingConnection {
    private final PreparedStatement statement;
    private boolean autoCommit = true;

    TransactionStandIn(Connection rest) throws SQLException {
      super(rest);
      this.statement = rest.prepareStatement("update t set x = 1");
    }

    @Override
    public PreparedStatement prepareStatement(String sql) {
      return statement;
    }

    @Override
    public void setAutoCommit(boolean autoCommit) {
      this.autoCommit = autoCommit;
    }

    @Override
    public boolean getAutoCommit() {
      return autoCommit;
    }

    @Override
    public void commit() {}

    @Override
    public void rollback() {}

    @Override
    public boolean isReadOnly() {
      return false;
    }
  }

  /** A connection whose statements answer at once: 1 row updated, an empty batch, or an SQLException. */
  private static Connection driver(boolean failing) {
    Object statement = Proxy.newProxyInstance(StatementTimingTest.class.getClassLoader(),
        new Class<?>[] {PreparedStatement.class}, (proxy, method, args) -> {
          if (failing && method.getName().startsWith("execute")) {
            throw new SQLException("duplicate key", "23505");
          }
          return switch (method.getName()) {
            case "executeUpdate" -> 1;
            case "executeLargeUpdate" -> 1L;
            case "executeBatch" -> new int[0];
            case "execute" -> false;
            case "getFetchSize" -> 0;
            default -> null;
          };
        });
    boolean[] autoCommit = {true};
    return (Connection) Proxy.newProxyInstance(StatementTimingTest.class.getClassLoader(),
        new Class<?>[] {Connection.class}, (proxy, method, args) -> switch (method.getName()) {
          case "prepareStatement", "createStatement" -> statement;
          case "getAutoCommit" -> autoCommit[0];
          case "setAutoCommit" -> {
            autoCommit[0] = (Boolean) args[0];
            yield null;
          }
          case "isReadOnly" -> false;
          default -> null;
        });
  }
}
