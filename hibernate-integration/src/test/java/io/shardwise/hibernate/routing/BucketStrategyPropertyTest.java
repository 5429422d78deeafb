package io.shardwise.hibernate.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Balance, minimal movement on resharding and weights of the bucket strategy, without a database. */
class BucketStrategyPropertyTest {
  private static final int KEYS = 1_000_000;

  @ParameterizedTest(name = "{0} shards")
  @ValueSource(ints = {4, 8})
  void equalWeightsGiveEqualLoad(int shardCount) {
    BucketStrategy strategy = new BucketStrategy(ShardMap.evenlyAssigned(1, shards(shardCount, 1), 1024));
    Map<String, Integer> load = load(strategy);
    double ratio = maxOverMean(load);
    System.out.printf("bucket strategy, %d shards, %d sequential keys: max/mean load %.4f%n", shardCount, KEYS, ratio);
    assertEquals(shardCount, load.size(), "every shard receives keys: " + load);
    assertTrue(ratio <= 1.05, "max/mean load " + ratio + " over " + load);
  }

  @ParameterizedTest(name = "{0} -> {0}+1 shards")
  @ValueSource(ints = {4, 8})
  void addingAShardMovesOnlyItsShare(int shardCount) {
    ShardMap before = ShardMap.evenlyAssigned(1, shards(shardCount, 1), 1024);
    ShardMap after = before.withShardAdded(ShardDescriptor.of("new", "jdbc:postgresql://new/db"));
    BucketStrategy oldRouting = new BucketStrategy(before);
    BucketStrategy newRouting = new BucketStrategy(after);
    int moved = 0;
    for (long key = 1; key <= KEYS; key++) {
      String was = oldRouting.shardFor(key);
      String is = newRouting.shardFor(key);
      if (was != is) {
        moved++;
        assertEquals("new", is, "a key may only move to the new shard, key " + key);
      }
    }
    double fraction = (double) moved / KEYS;
    double ideal = 1.0 / (shardCount + 1);
    Map<String, Integer> load = load(newRouting);
    System.out.printf("bucket strategy, %d -> %d shards: moved %.4f of keys (ideal %.4f, ratio %.4f), "
        + "max/mean load after %.4f%n", shardCount, shardCount + 1, fraction, ideal, fraction / ideal, maxOverMean(load));
    assertEquals(before.version() + 1, after.version());
    assertTrue(fraction <= 1.05 * ideal, "moved " + fraction + ", ideal " + ideal);
    assertTrue(maxOverMean(load) <= 1.05, "load after adding a shard " + load);
  }

  @Test
  void shardWithWeightTwoGetsTwiceTheKeys() {
    List<ShardDescriptor> shards = new ArrayList<>(shards(3, 1));
    shards.add(new ShardDescriptor("big", "jdbc:postgresql://big/db", List.of(), 2, ShardState.ACTIVE));
    BucketStrategy strategy = new BucketStrategy(ShardMap.evenlyAssigned(1, shards, 1024));
    Map<String, Integer> load = load(strategy);
    double perUnit = KEYS / 5.0;
    double bigRatio = load.get("big") / perUnit;
    System.out.printf("bucket strategy, weights 1,1,1,2: weight-2 shard gets %.4f x the per-weight share%n", bigRatio);
    assertTrue(Math.abs(bigRatio - 2) < 0.05, "weight-2 shard load " + load);
    for (int i = 0; i < 3; i++) {
      assertTrue(Math.abs(load.get("s" + i) / perUnit - 1) < 0.05, "weight-1 shard load " + load);
    }

    ShardMap after = ShardMap.evenlyAssigned(1, shards, 1024).withShardAdded(
        new ShardDescriptor("new", "jdbc:postgresql://new/db", List.of(), 2, ShardState.ACTIVE));
    Map<String, Integer> buckets = new HashMap<>();
    for (int b = 0; b < after.bucketCount(); b++) {
      buckets.merge(after.ownerOf(b), 1, Integer::sum);
    }
    // total weight 7: 1024 * 2/7 = 292.6 for each weight-2 shard, 146.3 for the others
    assertEquals(293, buckets.get("new"), "buckets " + buckets);
    assertTrue(Math.abs(buckets.get("big") - 292.6) <= 1.5, "buckets " + buckets);
    for (int i = 0; i < 3; i++) {
      assertTrue(Math.abs(buckets.get("s" + i) - 146.3) <= 1.5, "buckets " + buckets);
    }
  }

  @Test
  void bucketsAreContiguousSignedRanges() {
    assertEquals(0, BucketStrategy.bucketOf(Long.MIN_VALUE, 1024));
    assertEquals(1023, BucketStrategy.bucketOf(Long.MAX_VALUE, 1024));
    assertEquals(512, BucketStrategy.bucketOf(0, 1024));
    assertEquals(511, BucketStrategy.bucketOf(-1, 1024));
    assertEquals(0, BucketStrategy.bucketOf(Long.MAX_VALUE, 1));
    assertEquals(999, BucketStrategy.bucketOf(Long.MAX_VALUE, 1000));
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 100_000; i++) {
      long h = random.nextLong();
      int k = 1 + random.nextInt(20);
      int n = 1 << k;
      assertEquals((int) ((h >> (64 - k)) + n / 2), BucketStrategy.bucketOf(h, n), "power of two " + n + ", hash " + h);
      int m = 1 + random.nextInt(100_000);
      java.math.BigInteger exact = java.math.BigInteger.valueOf(h).add(java.math.BigInteger.ONE.shiftLeft(63))
          .multiply(java.math.BigInteger.valueOf(m)).shiftRight(64);
      assertEquals(exact.intValueExact(), BucketStrategy.bucketOf(h, m), "buckets " + m + ", hash " + h);
    }
    assertThrows(IllegalArgumentException.class, () -> BucketStrategy.bucketOf(0, 0));
  }

  @Test
  void nullAndUnsupportedKeysAreRejectedWithTheFix() {
    BucketStrategy strategy = new BucketStrategy(ShardMap.evenlyAssigned(1, shards(2, 1), 16));
    IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> strategy.shardFor((Object) null));
    assertTrue(none.getMessage().contains("shard key is null"), none.getMessage());
    IllegalArgumentException dbl = assertThrows(IllegalArgumentException.class, () -> strategy.shardFor((Object) 1.5));
    assertTrue(dbl.getMessage().contains("java.lang.Double") && dbl.getMessage().contains("String or java.util.UUID"),
        dbl.getMessage());
  }

  static Map<String, Integer> load(ShardingStrategy strategy) {
    Map<String, Integer> load = new HashMap<>();
    for (long key = 1; key <= KEYS; key++) {
      load.merge(strategy.shardFor(key), 1, Integer::sum);
    }
    return load;
  }

  static double maxOverMean(Map<String, Integer> load) {
    int max = load.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
    double mean = load.values().stream().mapToInt(Integer::intValue).average().orElseThrow();
    return max / mean;
  }

  static List<ShardDescriptor> shards(int n, int weight) {
    List<ShardDescriptor> list = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      list.add(new ShardDescriptor("s" + i, "jdbc:postgresql://h" + i + "/db", List.of(), weight, ShardState.ACTIVE));
    }
    return list;
  }
}
