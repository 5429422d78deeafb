package io.shardwise.hibernate.scatter;

/** What a scatter-gather query does when a shard fails or has not answered by the deadline. */
public enum ShardFailurePolicy {
  /** Throw {@link ScatterGatherException}, naming every shard that failed or was late. The default. */
  FAIL,
  /**
   * Merge what the other shards returned and name the missing shards in
   * {@link ScatterResult#missingShards()}. Aggregates are then computed over the answering shards only.
   */
  PARTIAL
}
