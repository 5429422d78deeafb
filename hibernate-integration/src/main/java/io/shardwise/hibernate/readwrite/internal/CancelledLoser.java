package io.shardwise.hibernate.readwrite.internal;

import io.shardwise.hibernate.internal.jdbc.ShardConnection;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.postgresql.core.BaseConnection;

/**
 * Stops the losing attempt of a hedged read on its server and keeps its connection.
 *
 * <h2>Cancelled, not closed</h2>
 *
 * The loser's connection is withdrawn ({@link ShardConnection#withdraw}: its later statements fail
 * at once, the running one fails quietly when cancelled, the breaker counts nothing) and its server
 * is sent PostgreSQL's cancel request for the connection's backend, on a connection of its own
 * (pgjdbc's {@code cancelQuery}), from a cancel thread. A live server acknowledges the request by
 * closing that connection once it has signalled the backend; the loser's statement then fails with
 * SQLSTATE 57014, its session rolls back, and the connection goes back to its pool as it is. Closing
 * it instead costs the pool a new backend, an authentication and a pool setup per hedge.
 *
 * <h2>Closed when the server does not answer</h2>
 *
 * The connection is aborted instead (its socket closed; the pool opens a new one) when its server's
 * breaker is not closed, when no cancel thread is free, and when the cancel is not acknowledged
 * within {@value #ACK_BOUND_MS} ms: a frozen server takes the cancel connection into its kernel's
 * backlog and never answers. So a caller whose attempt lost on a frozen server is released at most
 * {@value #ACK_BOUND_MS} ms after the other attempt answered.
 *
 * <h2>Never back to the pool with a cancel in flight</h2>
 *
 * A cancel request names a backend, not a statement: one that arrives after the loser's statement
 * ended cancels whatever that backend runs next, maybe for another session. So the loser does not
 * give the connection back while its cancel is in flight ({@link #beforeReturn}): it waits for the
 * acknowledgement, else aborts the connection. Acknowledged and aborted exclude each other (one
 * compare-and-set), so a connection that went back to its pool is never aborted afterwards.
 */
final class CancelledLoser {
  static final long ACK_BOUND_MS = 250;

  private static final int IN_FLIGHT = 0;
  private static final int ACKNOWLEDGED = 1;
  private static final int ABORTED = 2;

  private final Connection connection;
  private final BaseConnection driver;
  private final String why;
  private final long boundNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ACK_BOUND_MS);
  private final AtomicInteger state = new AtomicInteger(IN_FLIGHT);
  private final CountDownLatch settled = new CountDownLatch(1);

  private CancelledLoser(Connection connection, BaseConnection driver, String why) {
    this.connection = connection;
    this.driver = driver;
    this.why = why;
  }

  /**
   * Withdraws {@code connection} ({@link ShardConnection#withdraw}) for a cancel to be {@link #send
   * sent}; returns null when its server is not known to answer, after aborting it.
   */
  static CancelledLoser withdraw(Connection connection, String why) {
    BaseConnection driver = ShardConnection.withdraw(connection, why);
    if (driver == null) {
      ShardConnection.abandon(connection, why);
      return null;
    }
    return new CancelledLoser(connection, driver, why);
  }

  /**
   * Withdraws {@code connection}, on which nothing runs yet (the loser took it after it lost): no
   * cancel is needed, its first statement fails at once.
   */
  static void withdrawIdle(Connection connection, String why) {
    if (ShardConnection.withdraw(connection, why) == null) {
      ShardConnection.abandon(connection, why);
    }
  }

  /** Sends the cancel request on a thread of {@code cancels}, and aborts the connection if it is not acknowledged in time. */
  void send(Executor cancels, ScheduledExecutorService timer) {
    try {
      timer.schedule(this::abortUnlessAcknowledged, ACK_BOUND_MS, TimeUnit.MILLISECONDS);
      cancels.execute(this::cancel);
    } catch (RejectedExecutionException noThread) {
      abortUnlessAcknowledged();
    }
  }

  private void cancel() {
    try {
      driver.cancelQuery(); // returns once the server closed the cancel connection, i.e. signalled the backend
    } catch (SQLException | RuntimeException closed) {
      return; // the connection was closed meanwhile: the pool drops it, nothing runs on it for this attempt
    }
    if (state.compareAndSet(IN_FLIGHT, ACKNOWLEDGED)) {
      settled.countDown();
    }
  }

  void abortUnlessAcknowledged() {
    if (state.compareAndSet(IN_FLIGHT, ABORTED)) {
      settled.countDown();
      ShardConnection.abandon(connection, why + " (its server did not acknowledge the cancel within "
          + ACK_BOUND_MS + " ms)");
    }
  }

  /** The loser gives the connection back: not before the cancel is acknowledged; past the bound it is aborted. */
  void beforeReturn() {
    try {
      settled.await(Math.max(0, boundNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    abortUnlessAcknowledged();
  }
}
