package io.shardwise.hibernate.operations;

import java.util.List;

/**
 * Where the routed sessions went since counting began (or since {@link Hotspots#reset()}): per
 * shard its hottest buckets and keys with the share of the shard's traffic each takes, and the
 * findings that call for action. Sessions are counted when they are routed by key
 * ({@code ShardedSessions.forKey}); key counts are estimates from a sample of one session in
 * {@link #sampleEvery()}.
 *
 * @param totalSessions sessions routed by key, over all shards
 * @param sampleEvery one key in this many routed sessions feeds the key summary
 * @param shards every shard of the current map, busiest first
 * @param findings what dominates a shard, and what to do about it; empty when nothing does
 */
public record HotspotReport(long totalSessions, long sampleEvery, List<ShardTraffic> shards, List<Finding> findings) {
  public HotspotReport {
    shards = List.copyOf(shards);
    findings = List.copyOf(findings);
  }

  /**
   * One shard's traffic.
   *
   * @param sessions sessions routed to the shard's buckets
   * @param shareOfAll its share of all routed sessions (0 to 1)
   * @param bucketsOwned buckets it owns in the current map
   * @param hottestBuckets its busiest buckets, busiest first
   * @param hottestKeys its most frequent keys that the summary holds, most frequent first
   */
  public record ShardTraffic(String shardId, long sessions, double shareOfAll, int bucketsOwned,
      List<BucketLoad> hottestBuckets, List<KeyLoad> hottestKeys) {
    public ShardTraffic {
      hottestBuckets = List.copyOf(hottestBuckets);
      hottestKeys = List.copyOf(hottestKeys);
    }
  }

  /** A bucket's sessions and its share (0 to 1) of its shard's sessions. */
  public record BucketLoad(int bucket, long sessions, double shareOfShard) {}

  /**
   * A key's estimated sessions and its share (0 to 1) of its shard's sessions.
   *
   * @param estimatedSessions the summary's count times the sample interval
   * @param atLeastSessions the part of that estimate the summary guarantees (its count minus the
   *     overestimate it may carry, times the sample interval)
   */
  public record KeyLoad(Object key, int bucket, long estimatedSessions, long atLeastSessions, double shareOfShard) {}

  /** What a finding is about. */
  public enum Kind {
    /** One key takes a large share of its shard: moving buckets cannot split it. */
    KEY_DOMINATES_SHARD,
    /** One bucket (several keys) takes a large share of its shard: moving that bucket spreads it. */
    BUCKET_DOMINATES_SHARD,
    /** A shard takes far more than its buckets' share of all traffic. */
    SHARD_OVERLOADED
  }

  /**
   * One thing that dominates a shard.
   *
   * @param subject the key, {@code bucket <n>}, or the shard id
   * @param share the share (0 to 1) of the shard's sessions ({@link Kind#SHARD_OVERLOADED}: of all sessions)
   * @param advice what to do, in a sentence an operator can act on
   */
  public record Finding(Kind kind, String shardId, String subject, double share, String advice) {}
}
