package io.shardwise.hibernate.transaction;

import io.shardwise.hibernate.ShardwiseException;

/**
 * A cross-shard transaction is prepared on its other shards, but the coordinator could not learn
 * whether its deciding shard (the last one the work touched, which commits in one phase) committed:
 * that shard did not answer, or no longer is the server that began the transaction. The outcome is
 * not lost: it is all or nothing, and recovery settles it from the deciding shard's transaction
 * status as soon as that shard answers. Until then the prepared transactions hold their row locks.
 * Do not retry blindly: check for the effect first, or make the work idempotent.
 */
public class TransactionInDoubtException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  private final String globalTransactionId;

  public TransactionInDoubtException(String message, String globalTransactionId, Throwable cause) {
    super(message, cause);
    this.globalTransactionId = globalTransactionId;
  }

  /** The id of the prepared transactions, as {@code pg_prepared_xacts.gid} shows it on the prepared shards. */
  public String globalTransactionId() {
    return globalTransactionId;
  }
}
