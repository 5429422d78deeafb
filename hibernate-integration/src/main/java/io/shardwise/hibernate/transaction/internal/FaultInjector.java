package io.shardwise.hibernate.transaction.internal;

/**
 * A test hook called by the coordinator at the points where a crash matters. An implementation may
 * throw (an {@link Error} stands for the coordinator's death: the coordinator then does nothing more,
 * exactly as if its process had gone) or act on the outside world (stop a shard).
 * Not for production use; installed with {@link CrossShardService#faultInjector}.
 */
@FunctionalInterface
public interface FaultInjector {

  enum Point {
    /** Before {@code PREPARE TRANSACTION} on {@code shardId}. */
    BEFORE_PREPARE,
    /** Every shard prepared; the decision is not logged yet. */
    AFTER_PREPARE,
    /** The commit decision is logged; no shard has committed yet. */
    AFTER_DECISION,
    /** {@code COMMIT PREPARED} succeeded on {@code shardId}; others may still be prepared. */
    AFTER_COMMIT,
    /** A saga step committed its local transaction on {@code shardId}; the saga log does not know yet. */
    AFTER_SAGA_STEP
  }

  FaultInjector NONE = (point, id, shardId) -> { };

  void at(Point point, String id, String shardId);
}
