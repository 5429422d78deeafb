package io.shardwise.hibernate.transaction;

import io.shardwise.hibernate.TransactionAbortedException;

/**
 * A cross-shard transaction was rolled back on every shard it touched: nothing it wrote is visible
 * anywhere. The cause says why: a shard answered the work, its flush, prepare or commit with an
 * error (a lock timeout, a deadlock, a serialization failure, a constraint...), a shard could not be
 * reached before the commit decision, or recovery ended the transaction while its coordinator
 * stalled. An exception of the application's own thrown by the work is not wrapped in this one: it
 * propagates unchanged (see {@link CrossShardTransaction}). Safe to retry: nothing was committed;
 * {@link #isRetryable()} says whether the same work may succeed when run again.
 */
public class CrossShardAbortedException extends TransactionAbortedException {
  private static final long serialVersionUID = 1L;

  /** Retryable: for a failure that may not happen again (a shard that could not be reached, a stalled coordinator). */
  public CrossShardAbortedException(String message, Throwable cause) {
    this(message, true, cause);
  }

  public CrossShardAbortedException(String message, boolean retryable, Throwable cause) {
    super(message, retryable, cause);
  }
}
