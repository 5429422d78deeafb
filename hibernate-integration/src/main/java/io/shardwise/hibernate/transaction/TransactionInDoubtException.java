package io.shardwise.hibernate.transaction;

import io.shardwise.hibernate.ShardwiseException;

/**
 * Every shard prepared a cross-shard transaction, but the coordinator could not learn whether its
 * commit decision reached the control database. The outcome is not lost: it is all or nothing, and
 * recovery settles it (commit if the decision was logged, roll back otherwise) as soon as the control
 * database answers. Until then the prepared transactions hold their row locks. Do not retry blindly:
 * check for the effect first, or make the work idempotent.
 */
public class TransactionInDoubtException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  private final String globalTransactionId;

  public TransactionInDoubtException(String message, String globalTransactionId, Throwable cause) {
    super(message, cause);
    this.globalTransactionId = globalTransactionId;
  }

  /** The id of the prepared transactions, as {@code pg_prepared_xacts.gid} shows it on every shard. */
  public String globalTransactionId() {
    return globalTransactionId;
  }
}
