package io.shardwise.hibernate.transaction;

import java.util.List;

/**
 * What one recovery pass did ({@link CrossShardTransactions#recoverNow()}).
 *
 * @param committed prepared transactions found in doubt and committed, because their commit
 *     decision had been made
 * @param rolledBack prepared transactions found in doubt and rolled back, because no commit
 *     decision had been made
 * @param leftInDoubt prepared transactions left as they are for now: their coordinator is alive
 *     and still inside its grace period, or their outcome could not be read yet; a later pass
 *     settles them
 * @param unreachableShards shards recovery could not ask or finish on; a later pass retries them
 * @param sagasResumed unfinished sagas this instance took up (and drove to their end or to
 *     compensation) during the pass
 */
public record RecoveryReport(int committed, int rolledBack, int leftInDoubt, List<String> unreachableShards,
    long sagasResumed) {

  public RecoveryReport {
    unreachableShards = List.copyOf(unreachableShards);
  }

  /** Whether the pass found nothing left to do and reached every shard. */
  public boolean settledEverything() {
    return leftInDoubt == 0 && unreachableShards.isEmpty();
  }
}
