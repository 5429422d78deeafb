package io.shardwise.hibernate.transaction;

import io.shardwise.hibernate.ShardwiseException;

/**
 * A cross-shard transaction was rolled back on every shard it touched: nothing it wrote is visible
 * anywhere. The cause says why (a shard could not flush or prepare, the deciding shard refused its
 * commit, or recovery ended the transaction while its coordinator stalled). An exception thrown by
 * the work itself is not wrapped in this one: it propagates unchanged (see
 * {@link CrossShardTransaction}). Safe to retry.
 */
public class CrossShardAbortedException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  public CrossShardAbortedException(String message, Throwable cause) {
    super(message, cause);
  }
}
