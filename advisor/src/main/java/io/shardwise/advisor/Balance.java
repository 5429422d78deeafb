package io.shardwise.advisor;

import io.shardwise.hibernate.routing.BucketStrategy;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardKeyType;
import io.shardwise.hibernate.routing.ShardMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * How evenly a proposed key would spread the group's rows, from PostgreSQL's sample of the key
 * columns that exist today. Each most common value is hashed exactly as the router hashes it
 * ({@link ShardKeyType#hash}) into one of {@link ShardMap#DEFAULT_BUCKETS} buckets, and buckets go to
 * shards as {@link ShardMap#evenlyAssigned} deals them; the rest of the rows (those
 * {@code most_common_vals} does not list) are spread evenly, which is what a hash does to many
 * rare values. Tables are weighed by {@code reltuples}.
 *
 * @param sources the {@code table.column} samples the estimate rests on
 * @param largestBucketShare the expected share of the group's rows in its largest bucket
 * @param largestShardShare shard count → the largest shard's expected share of the rows
 * @param hotKeys keys holding at least {@link #HOT_SHARE} of the rows, largest first
 */
record Balance(List<String> sources, double largestBucketShare, Map<Integer, Double> largestShardShare,
    List<HotKey> hotKeys) {

  static final double HOT_SHARE = 0.05;
  static final int[] SHARD_COUNTS = {2, 4, 8, 16};

  /** A key whose rows are a large share of the group: no bucket move can split it. */
  record HotKey(String value, double share, int bucket) {
    String advice() {
      return String.format(Locale.ROOT, "key %s holds %.1f%% of the rows (bucket %d): moving buckets cannot split"
          + " one key; give it a shard of its own with a directory entry (shardwise.strategy = directory,"
          + " shardwise.fallback = bucket, shardwise.directory.%s = <shard>)", value, 100 * share, bucket, value);
    }
  }

  /** One key column's sample in one table. */
  record Sample(String table, String column, double rows, DatabaseStatistics.ColumnStats stats) {}

  static Balance estimate(List<Sample> samples, ShardKeyType type) {
    int buckets = ShardMap.DEFAULT_BUCKETS;
    double total = samples.stream().mapToDouble(Sample::rows).sum();
    if (samples.isEmpty() || total <= 0 || type == null) {
      return null;
    }
    double[] bucketShare = new double[buckets];
    Map<String, double[]> valueShare = new LinkedHashMap<>();
    double largestRareValue = 0;
    List<String> sources = new ArrayList<>();
    for (Sample sample : samples) {
      sources.add(sample.table() + "." + sample.column());
      double weight = sample.rows() / total;
      List<String> values = sample.stats().mostCommonValues();
      List<Double> freqs = sample.stats().mostCommonFreqs();
      double listed = 0;
      for (int i = 0; i < Math.min(values.size(), freqs.size()); i++) {
        int bucket = BucketStrategy.bucketOf(type.hash(parse(values.get(i), type)), buckets);
        double share = weight * freqs.get(i);
        bucketShare[bucket] += share;
        valueShare.computeIfAbsent(values.get(i), v -> new double[] {0, bucket})[0] += share;
        listed += freqs.get(i);
      }
      double rest = weight * Math.max(0, 1 - listed);
      double rareValues = Math.max(1, sample.stats().distinct(sample.rows()) - values.size());
      largestRareValue = Math.max(largestRareValue, rest / rareValues);
      for (int b = 0; b < buckets; b++) {
        bucketShare[b] += rest / buckets;
      }
    }
    double largestBucket = largestRareValue;
    for (double share : bucketShare) {
      largestBucket = Math.max(largestBucket, share);
    }
    Map<Integer, Double> largestShard = new LinkedHashMap<>();
    for (int shards : SHARD_COUNTS) {
      String[] owners = evenMap(shards, buckets).bucketOwnersCopy();
      Map<String, Double> perShard = new HashMap<>();
      for (int b = 0; b < buckets; b++) {
        perShard.merge(owners[b], bucketShare[b], Double::sum);
      }
      largestShard.put(shards, perShard.values().stream().mapToDouble(Double::doubleValue).max().orElse(0));
    }
    List<HotKey> hot = new ArrayList<>();
    valueShare.forEach((value, share) -> {
      if (share[0] >= HOT_SHARE) {
        hot.add(new HotKey(value, share[0], (int) share[1]));
      }
    });
    hot.sort((a, b) -> Double.compare(b.share(), a.share()));
    return new Balance(sources, largestBucket, largestShard, hot);
  }

  private static ShardMap evenMap(int shards, int buckets) {
    List<ShardDescriptor> descriptors = new ArrayList<>();
    for (int i = 0; i < shards; i++) {
      descriptors.add(ShardDescriptor.of("s" + i, "jdbc:postgresql://estimate/s" + i));
    }
    return ShardMap.evenlyAssigned(1, descriptors, buckets);
  }

  private static Object parse(String value, ShardKeyType type) {
    return switch (type) {
      case SHORT, INT, LONG -> Long.parseLong(value.strip());
      case STRING -> value;
      case UUID -> UUID.fromString(value.strip());
    };
  }
}
