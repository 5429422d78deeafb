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
    /** Before {@code PREPARE TRANSACTION} on {@code shardId}, a participant other than the decider. */
    BEFORE_PREPARE,
    /**
     * Every participant but the decider ({@code shardId}) is prepared; the decider's transaction is
     * open and has not committed: the commit point is next.
     */
    AFTER_PREPARE,
    /** The decider ({@code shardId}) committed: the transaction is committed; the others are still prepared. */
    AFTER_DECISION,
    /** {@code COMMIT PREPARED} succeeded on {@code shardId}; others may still be prepared. */
    AFTER_COMMIT,
    /** A saga step committed its local transaction on {@code shardId}; the saga log does not know yet. */
    AFTER_SAGA_STEP,
    /** Saga recovery listed saga {@code id} as one to take up and is about to re-read and claim it. */
    BEFORE_SAGA_CLAIM,
    /** The recovery daemon starts a periodic pass ({@code id} is this coordinator's id). */
    RECOVERY_PASS
  }

  FaultInjector NONE = (point, id, shardId) -> { };

  void at(Point point, String id, String shardId);
}
