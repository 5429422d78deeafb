package io.shardwise.hibernate.transaction;

/**
 * Operations on the cross-shard transactions of a session factory, beyond running one
 * ({@link io.shardwise.hibernate.ShardedSessions#atomically}); obtained from
 * {@link io.shardwise.hibernate.ShardedSessions#transactions()}.
 */
public interface CrossShardTransactions {

  /**
   * Runs one recovery pass now, instead of waiting for the daemon's next one
   * ({@code shardwise.tx.recovery_interval_ms}): settles the prepared transactions left in doubt
   * on every shard (commit where the decision was made, roll back otherwise), then resumes the
   * unfinished sagas no live instance is driving. Safe to call at any time and from several
   * instances; passes do not overlap within one instance.
   *
   * @return what the pass did
   */
  RecoveryReport recoverNow();
}
