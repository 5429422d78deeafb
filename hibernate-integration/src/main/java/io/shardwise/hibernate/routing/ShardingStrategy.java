package io.shardwise.hibernate.routing;

import java.util.Collection;

/**
 * Decides which shard owns a shard key. Implementations are immutable and thread-safe; a change of
 * topology builds a new strategy.
 *
 * <ul>
 *   <li>{@link BucketStrategy}: hash to one of a fixed number of buckets, buckets assigned to shards
 *       by a {@link ShardMap}; the default, and the only one whose placement SQL can reproduce.</li>
 *   <li>{@link ConsistentHashRing}: a weighted consistent-hash ring.</li>
 *   <li>{@link RangeStrategy}: explicit ranges of integral key values.</li>
 *   <li>{@link DirectoryStrategy}: an explicit key → shard table, with an optional fallback.</li>
 * </ul>
 *
 * {@link ShardingStrategies#fromProperties} builds one from configuration.
 */
public interface ShardingStrategy {

  /**
   * The id of the shard that owns the key.
   *
   * @param key a {@code Short}, {@code Integer}, {@code Long}, {@code String} or {@code java.util.UUID}
   * @throws IllegalArgumentException if the key is null, of another type, or not routable by this
   *     strategy; the message says what to change
   */
  String shardFor(Object key);

  /**
   * The id of the shard that owns an integral key ({@code short} and {@code int} keys widen to the
   * same result). Does not box or allocate.
   */
  String shardFor(long key);

  /**
   * The shard that serves read-only sessions of the key: its owner, unless an online move has
   * switched the reads of its bucket to the move's target ({@link BucketStrategy} only).
   */
  default String readShardFor(Object key) {
    return shardFor(key);
  }

  /** {@link #readShardFor(Object)} for an integral key, without boxing. */
  default String readShardFor(long key) {
    return shardFor(key);
  }

  /** The ids of the shards this strategy can return, each once. */
  Collection<String> shards();
}
