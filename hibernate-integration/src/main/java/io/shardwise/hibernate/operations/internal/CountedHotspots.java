package io.shardwise.hibernate.operations.internal;

import io.shardwise.hibernate.operations.HotspotReport;
import io.shardwise.hibernate.operations.Hotspots;
import io.shardwise.hibernate.operations.HotspotsUnavailableException;
import io.shardwise.hibernate.operations.ShardKeyWarning;
import io.shardwise.hibernate.routing.ShardMap;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The hotspots of one session factory: the {@link Traffic} recorder the routing path calls (chosen
 * once), the report built from it, and the shard key statistics check.
 */
public final class CountedHotspots implements Hotspots {
  private static final System.Logger LOG = System.getLogger("io.shardwise");

  private final BucketTraffic counting;
  private final String whyNotCounting;
  private final Supplier<ShardMap> map;
  private final Supplier<List<String[]>> keyColumns;
  private final Function<String, Connection> primaries;
  private final boolean rangeSharded;

  private CountedHotspots(BucketTraffic counting, String whyNotCounting, Supplier<ShardMap> map,
      Supplier<List<String[]>> keyColumns, Function<String, Connection> primaries, boolean rangeSharded) {
    this.counting = counting;
    this.whyNotCounting = whyNotCounting;
    this.map = map;
    this.keyColumns = keyColumns;
    this.primaries = primaries;
    this.rangeSharded = rangeSharded;
  }

  /**
   * @param whyNotCounting null to count, else why nothing is counted (the report's exception message)
   * @param keyColumns {@code [table, key column]} of every sharded table, read when a check runs
   * @param primaries a connection to a shard's primary, closed by the check
   */
  public static CountedHotspots start(String whyNotCounting, int buckets, int sampleEvery, Supplier<ShardMap> map,
      Supplier<List<String[]>> keyColumns, Function<String, Connection> primaries, boolean rangeSharded) {
    BucketTraffic counting = whyNotCounting == null ? new BucketTraffic(buckets, sampleEvery, 256) : null;
    return new CountedHotspots(counting, whyNotCounting, map, keyColumns, primaries, rangeSharded);
  }

  /** What the routing path calls: the counters, or a recorder that does nothing. */
  public Traffic traffic() {
    return counting != null ? counting : Traffic.none();
  }

  /** Whether sessions are counted. */
  public boolean counting() {
    return counting != null;
  }

  /** Sessions per bucket so far, or an empty array when nothing is counted. */
  public long[] bucketCounts() {
    return counting != null ? counting.bucketCounts() : new long[0];
  }

  @Override
  public HotspotReport report() {
    if (counting == null) {
      throw new HotspotsUnavailableException(whyNotCounting);
    }
    return HotspotAnalysis.analyse(counting, map.get());
  }

  @Override
  public void reset() {
    if (counting != null) {
      counting.reset();
    }
  }

  @Override
  public List<ShardKeyWarning> checkShardKeys() {
    List<ShardKeyCheck.KeyColumn> columns = keyColumns.get().stream()
        .map(c -> new ShardKeyCheck.KeyColumn(c[0], c[1])).toList();
    ShardMap current = map.get();
    List<ShardKeyWarning> warnings = new ArrayList<>();
    for (String shardId : current.shards().keySet()) {
      try (Connection connection = primaries.apply(shardId)) {
        warnings.addAll(ShardKeyCheck.check(shardId, connection, columns, current.bucketCount(), rangeSharded));
      } catch (SQLException e) {
        LOG.log(System.Logger.Level.WARNING, "The shard key check could not read the statistics of shard "
            + shardId + ": " + e.getMessage());
      }
    }
    return warnings;
  }

  /** Logs the check's warnings; for the start of a session factory, on a thread of its own. */
  public void logShardKeyWarnings() {
    try {
      for (ShardKeyWarning warning : checkShardKeys()) {
        LOG.log(System.Logger.Level.WARNING, warning.message());
      }
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "The shard key check failed: " + e.getMessage());
    }
  }
}
