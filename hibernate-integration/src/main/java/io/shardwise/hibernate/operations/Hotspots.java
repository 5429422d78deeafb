package io.shardwise.hibernate.operations;

import java.util.List;

/**
 * Hotspot detection for one session factory: per-bucket traffic counters on the routing path and
 * a summary of the most frequent keys (docs/operations.md, "Hotspots"). Obtained from
 * {@code ShardedSessions.hotspots()}.
 */
public interface Hotspots {

  /**
   * The traffic per shard, bucket and key since counting began or the last {@link #reset()}, and
   * the findings.
   *
   * @throws HotspotsUnavailableException when counting is off ({@code shardwise.hotspots.enabled =
   *     false}) or the sharding strategy has no buckets
   */
  HotspotReport report();

  /** Starts counting from zero: the next report covers only what is routed from now on. */
  void reset();

  /**
   * Reads PostgreSQL's statistics of every sharded table's key column on every shard primary and
   * returns the columns that look low-cardinality (or monotonic under range sharding). Tables
   * without statistics yet (never analysed) are skipped; it never scans a table.
   */
  List<ShardKeyWarning> checkShardKeys();
}
