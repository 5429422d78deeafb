package io.shardwise.hibernate.metrics;

import java.util.Locale;

/** How a session found its shard: the {@code kind} tag of {@code shardwise.sessions}. */
public enum SessionKind {
  /** {@code shards.forKey(key)}: routed by a shard key. */
  KEY,
  /** {@code shards.forShard(id)}: a shard named directly (also the participants of cross-shard transactions). */
  SHARD,
  /** {@code shards.forNewRoot(type)}: the shard chosen by weight for a new root. */
  NEW_ROOT,
  /** Opened the ordinary way ({@code sessionFactory.openSession()}, an {@code EntityManager}) inside a {@code ShardContext}. */
  CONTEXT,
  /** One shard's part of a scatter-gather query. */
  SCATTER,
  /** Opened the ordinary way without a {@code ShardContext}: reference tables only. */
  NO_SHARD;

  private final String tag = name().toLowerCase(Locale.ROOT).replace('_', '-');

  /** The value of the {@code kind} tag: {@code key}, {@code shard}, {@code context}, {@code scatter}, {@code no-shard}, {@code new-root}. */
  public String tag() {
    return tag;
  }
}
