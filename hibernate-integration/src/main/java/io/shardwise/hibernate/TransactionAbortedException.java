package io.shardwise.hibernate;

import java.sql.SQLException;

/**
 * A unit of work failed on its shard and was rolled back: nothing it wrote since its last commit is
 * kept. Thrown by the callback units of work ({@code ShardRoute.inTransaction}, {@code fromTransaction},
 * {@code inSession}, {@code fromSession}) when the shard answered with an error — a lock timeout, a
 * deadlock, a serialization failure, a stale versioned row, a constraint or data error — in place of
 * Hibernate's exception, which is the cause. ({@code CrossShardAbortedException} is the same for
 * {@code ShardedSessions.atomically}.)
 *
 * <p>Retrying is always <em>safe</em>: nothing was committed. {@link #isRetryable()} says whether the
 * same work <em>may succeed</em> when run again: yes when another transaction was in the way; no when
 * the shard refused the work itself and would refuse it again.
 */
public class TransactionAbortedException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  private final boolean retryable;

  public TransactionAbortedException(String message, boolean retryable, Throwable cause) {
    super(message, cause);
    this.retryable = retryable;
  }

  /**
   * Whether running the same unit of work again may succeed: true for a lock timeout (SQLSTATE
   * 55P03), a deadlock (40P01), a serialization failure (40001), a versioned row changed by another
   * transaction, or a shard that could not be reached or was too busy; false when the shard refused
   * the work itself (a constraint, a data or syntax error, a statement timeout).
   */
  public boolean isRetryable() {
    return retryable;
  }

  /** The SQLSTATE of the shard's error, when the shard answered with one; else null. */
  public String sqlState() {
    for (Throwable t = getCause(); t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        return sql.getSQLState();
      }
    }
    return null;
  }
}
