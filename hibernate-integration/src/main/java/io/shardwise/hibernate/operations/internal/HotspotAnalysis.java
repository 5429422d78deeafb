package io.shardwise.hibernate.operations.internal;

import io.shardwise.hibernate.operations.HotspotReport;
import io.shardwise.hibernate.operations.HotspotReport.BucketLoad;
import io.shardwise.hibernate.operations.HotspotReport.Finding;
import io.shardwise.hibernate.operations.HotspotReport.Kind;
import io.shardwise.hibernate.operations.HotspotReport.KeyLoad;
import io.shardwise.hibernate.operations.HotspotReport.ShardTraffic;
import io.shardwise.hibernate.routing.ShardMap;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns the bucket counters and the key summary into a {@link HotspotReport}: buckets are
 * attributed to the shard that owns them in the current map, keys to the owner of their bucket.
 * A key's estimate (sampled count times the sample interval) is capped by its bucket's exact count,
 * which holds it: a key seen once in a quiet bucket is not inflated to a whole sample interval.
 */
final class HotspotAnalysis {
  /** A shard with fewer routed sessions than this gets no key or bucket findings: too little to judge. */
  static final long MIN_SESSIONS = 1000;
  /** A key or bucket taking at least this share of its shard's sessions dominates it. */
  static final double DOMINANT_SHARE = 0.2;
  /** A shard whose share of all sessions exceeds its share of the buckets by this factor is overloaded. */
  static final double OVERLOAD_FACTOR = 1.5;
  private static final int TOP = 8;

  private HotspotAnalysis() {}

  static HotspotReport analyse(BucketTraffic traffic, ShardMap map) {
    long[] perBucket = traffic.bucketCounts();
    long sampleEvery = traffic.sampleEvery();
    Map<String, List<Integer>> bucketsOf = new LinkedHashMap<>();
    map.shards().keySet().forEach(id -> bucketsOf.put(id, new ArrayList<>()));
    long total = 0;
    for (int b = 0; b < perBucket.length && b < map.bucketCount(); b++) {
      bucketsOf.computeIfAbsent(map.ownerOf(b), id -> new ArrayList<>()).add(b);
      total += perBucket[b];
    }
    Map<String, List<KeyLoad>> keysOf = new LinkedHashMap<>();
    Map<String, Long> sessionsOf = new LinkedHashMap<>();
    bucketsOf.forEach((id, owned) -> sessionsOf.put(id, owned.stream().mapToLong(b -> perBucket[b]).sum()));
    for (SpaceSaving.Entry e : traffic.hotKeys()) {
      String owner = e.bucket() < map.bucketCount() ? map.ownerOf(e.bucket()) : null;
      long shardSessions = owner == null ? 0 : sessionsOf.getOrDefault(owner, 0L);
      if (shardSessions == 0) {
        continue;
      }
      long estimate = Math.min(e.count() * sampleEvery, perBucket[e.bucket()]);
      long atLeast = Math.min((e.count() - e.error()) * sampleEvery, perBucket[e.bucket()]);
      keysOf.computeIfAbsent(owner, id -> new ArrayList<>())
          .add(new KeyLoad(e.key(), e.bucket(), estimate, atLeast, (double) atLeast / shardSessions));
    }

    List<ShardTraffic> shards = new ArrayList<>();
    List<Finding> findings = new ArrayList<>();
    String quietest = sessionsOf.entrySet().stream().min(Map.Entry.comparingByValue()).map(Map.Entry::getKey)
        .orElse(null);
    for (Map.Entry<String, List<Integer>> e : bucketsOf.entrySet()) {
      String shardId = e.getKey();
      long sessions = sessionsOf.get(shardId);
      List<BucketLoad> buckets = e.getValue().stream().filter(b -> perBucket[b] > 0)
          .sorted(Comparator.comparingLong((Integer b) -> perBucket[b]).reversed()).limit(TOP)
          .map(b -> new BucketLoad(b, perBucket[b], (double) perBucket[b] / sessions)).toList();
      List<KeyLoad> keys = keysOf.getOrDefault(shardId, List.of()).stream()
          .sorted(Comparator.comparingLong(KeyLoad::atLeastSessions).reversed()).limit(TOP).toList();
      shards.add(new ShardTraffic(shardId, sessions, total == 0 ? 0 : (double) sessions / total, e.getValue().size(),
          buckets, keys));
      if (sessions >= MIN_SESSIONS) {
        findShardHotspots(shardId, buckets, keys, quietest, findings);
      }
      double bucketShare = (double) e.getValue().size() / map.bucketCount();
      double trafficShare = total == 0 ? 0 : (double) sessions / total;
      if (total >= MIN_SESSIONS && bucketsOf.size() > 1 && trafficShare > OVERLOAD_FACTOR * bucketShare
          && !shardId.equals(quietest)) {
        findings.add(new Finding(Kind.SHARD_OVERLOADED, shardId, shardId, trafficShare, String.format(Locale.ROOT,
            "%s takes %s of all routed sessions with %s of the buckets. Move some of its busiest buckets (%s) to"
                + " %s, the least busy shard, with 'shardwise reshard start --from %s --to %s --buckets ...'.",
            shardId, percent(trafficShare), percent(bucketShare),
            buckets.stream().limit(3).map(b -> Integer.toString(b.bucket())).reduce((a, b) -> a + "," + b).orElse("-"),
            quietest, shardId, quietest)));
      }
    }
    shards.sort(Comparator.comparingLong(ShardTraffic::sessions).reversed());
    return new HotspotReport(total, sampleEvery, shards, findings);
  }

  private static void findShardHotspots(String shardId, List<BucketLoad> buckets, List<KeyLoad> keys,
      String quietest, List<Finding> findings) {
    java.util.Set<Integer> explainedByKey = new java.util.HashSet<>();
    for (KeyLoad key : keys) {
      if (key.shareOfShard() >= DOMINANT_SHARE) {
        explainedByKey.add(key.bucket());
        findings.add(new Finding(Kind.KEY_DOMINATES_SHARD, shardId, String.valueOf(key.key()), key.shareOfShard(),
            String.format(Locale.ROOT, "Key %s takes at least %s of %s's routed sessions (bucket %d). Moving buckets"
                + " cannot split one key: give it a shard of its own with a directory entry"
                + " (shardwise.strategy = directory, shardwise.fallback = bucket, shardwise.directory.%s = <shard>),"
                + " or serve its reads from replicas or a cache.",
                key.key(), percent(key.shareOfShard()), shardId, key.bucket(), key.key())));
      }
    }
    for (BucketLoad bucket : buckets) {
      if (bucket.shareOfShard() >= DOMINANT_SHARE && !explainedByKey.contains(bucket.bucket())) {
        boolean elsewhere = quietest != null && !quietest.equals(shardId);
        findings.add(new Finding(Kind.BUCKET_DOMINATES_SHARD, shardId, "bucket " + bucket.bucket(),
            bucket.shareOfShard(), String.format(Locale.ROOT, "Bucket %d takes %s of %s's routed sessions, spread"
                + " over several keys. %s", bucket.bucket(), percent(bucket.shareOfShard()), shardId, elsewhere
                ? "Move it to " + quietest + ", the least busy shard: 'shardwise reshard start --from " + shardId
                    + " --to " + quietest + " --buckets " + bucket.bucket() + " ...'."
                : "Move it to a new shard: 'shardwise reshard start --from " + shardId + " --to <new shard>"
                    + " --target-url <jdbc url> --buckets " + bucket.bucket() + " ...'.")));
      }
    }
  }

  static String percent(double share) {
    return String.format(Locale.ROOT, "%.0f%%", share * 100);
  }
}
