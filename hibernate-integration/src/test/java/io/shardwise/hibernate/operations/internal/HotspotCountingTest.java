package io.shardwise.hibernate.operations.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.operations.HotspotReport;
import io.shardwise.hibernate.operations.ShardKeyWarning;
import io.shardwise.hibernate.routing.BucketStrategy;
import io.shardwise.hibernate.routing.PgHash;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.StaticShardMapSource;
import io.shardwise.hibernate.routing.internal.Router;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The counters, the key summary and the analysis, without a database: what they compute is
 * arithmetic on routing hashes, checked here against {@link BucketStrategy} itself.
 */
class HotspotCountingTest {
  private static final ShardMap TWO_SHARDS = ShardMap.evenlyAssigned(1, List.of(
      ShardDescriptor.of("s0", "jdbc:postgresql://db0:5432/shop"),
      ShardDescriptor.of("s1", "jdbc:postgresql://db1:5432/shop")), 1024);

  @Test
  void everyRoutedKeyIsCountedInTheBucketTheRouterUses() {
    BucketTraffic traffic = new BucketTraffic(1024, 64, 16);
    long[] expected = new long[1024];
    Random random = new Random(7);
    for (int i = 0; i < 20_000; i++) {
      long key = random.nextLong();
      traffic.record(key);
      expected[BucketStrategy.bucketOf(PgHash.hashLong(key), 1024)]++;
    }
    traffic.record("acme");
    expected[BucketStrategy.bucketOf(PgHash.hashText("acme"), 1024)]++;
    UUID id = new UUID(1, 2);
    traffic.record(id);
    expected[BucketStrategy.bucketOf(PgHash.hashUuid(id), 1024)]++;
    traffic.record(Integer.valueOf(5));
    expected[BucketStrategy.bucketOf(PgHash.hashLong(5), 1024)]++;
    assertEquals(java.util.Arrays.toString(expected), java.util.Arrays.toString(traffic.bucketCounts()));
  }

  @Test
  void theRoutersBucketCountsLikeHashingTheKeyAgain() {
    for (int buckets : new int[] {1024, 1000, 1}) {
      ShardMap map = ShardMap.evenlyAssigned(1, List.of(
          ShardDescriptor.of("s0", "jdbc:postgresql://db0:5432/shop"),
          ShardDescriptor.of("s1", "jdbc:postgresql://db1:5432/shop")), buckets);
      Router router = Router.following(new StaticShardMapSource(map), BucketStrategy::new, "unit");
      BucketTraffic handed = new BucketTraffic(buckets, 1, 64);
      BucketTraffic hashed = new BucketTraffic(buckets, 1, 64);
      Random random = new Random(11);
      for (int i = 0; i < 5_000; i++) {
        long key = i % 3 == 0 ? random.nextLong() : random.nextInt(40);
        assertEquals(router.shardFor(key), router.shardFor(key, handed), "owner of key " + key);
        hashed.record(key);
      }
      assertEquals(java.util.Arrays.toString(hashed.bucketCounts()), java.util.Arrays.toString(handed.bucketCounts()),
          buckets + " buckets");
      assertEquals(hashed.hotKeys().toString(), handed.hotKeys().toString(), buckets + " buckets");
    }
  }

  @Test
  void theRoutersBucketOfAnyKeyTypeCountsLikeHashingTheKeyAgain() {
    for (int buckets : new int[] {1024, 1000, 1}) {
      ShardMap map = ShardMap.evenlyAssigned(1, List.of(
          ShardDescriptor.of("s0", "jdbc:postgresql://db0:5432/shop"),
          ShardDescriptor.of("s1", "jdbc:postgresql://db1:5432/shop")), buckets);
      Router router = Router.following(new StaticShardMapSource(map), BucketStrategy::new, "unit");
      BucketTraffic handed = new BucketTraffic(buckets, 1, 64);
      BucketTraffic hashed = new BucketTraffic(buckets, 1, 64);
      Random random = new Random(13);
      for (int i = 0; i < 5_000; i++) {
        int n = random.nextInt(40);
        Object key = switch (i % 3) {
          case 0 -> "tenant-" + n;
          case 1 -> new UUID(n, 7);
          default -> Long.valueOf(n);
        };
        assertEquals(router.shardFor(key), router.shardFor(key, handed), "owner of key " + key);
        hashed.record(key);
      }
      assertEquals(java.util.Arrays.toString(hashed.bucketCounts()), java.util.Arrays.toString(handed.bucketCounts()),
          buckets + " buckets");
      assertEquals(hashed.hotKeys().toString(), handed.hotKeys().toString(), buckets + " buckets");
    }
  }

  @Test
  void aBucketFromAMapWithMoreBucketsIsCountedByTheCountersOwn() {
    BucketTraffic traffic = new BucketTraffic(16, 1, 4);
    traffic.count(123L, 700);
    assertEquals(1, traffic.bucketCounts()[BucketStrategy.bucketOf(PgHash.hashLong(123), 16)]);
  }

  @Test
  void aBucketCountThatIsNotAPowerOfTwoRoutesLikeTheStrategy() {
    BucketTraffic traffic = new BucketTraffic(1000, 1, 4);
    traffic.record(123L);
    assertEquals(1, traffic.bucketCounts()[BucketStrategy.bucketOf(PgHash.hashLong(123), 1000)]);
  }

  @Test
  void countsFromManyThreadsAddUpExactly() throws Exception {
    BucketTraffic traffic = new BucketTraffic(1024, 64, 16);
    int threads = 4;
    int perThread = 50_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    for (int t = 0; t < threads; t++) {
      pool.submit(() -> {
        start.await();
        for (int i = 0; i < perThread; i++) {
          traffic.record(i % 3);
        }
        return null;
      });
    }
    start.countDown();
    pool.shutdown();
    assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS), "the counting threads did not finish");
    assertEquals((long) threads * perThread, java.util.Arrays.stream(traffic.bucketCounts()).sum());
  }

  @Test
  void theSummaryHoldsEveryFrequentKeyWithinItsErrorBound() {
    SpaceSaving summary = new SpaceSaving(32);
    Random random = new Random(11);
    long heavy = 0;
    long second = 0;
    int n = 100_000;
    for (int i = 0; i < n; i++) {
      double r = random.nextDouble();
      if (r < 0.3) {
        summary.offer(42L, 1);
        heavy++;
      } else if (r < 0.4) {
        summary.offer("tenant-7", 2);
        second++;
      } else {
        summary.offer(1_000 + random.nextInt(50_000), 3);
      }
    }
    List<SpaceSaving.Entry> entries = summary.entries();
    assertEquals(42L, entries.get(0).key());
    assertEquals("tenant-7", entries.get(1).key());
    for (SpaceSaving.Entry e : entries.subList(0, 2)) {
      long truth = e.key().equals(42L) ? heavy : second;
      assertTrue(e.count() - e.error() <= truth && truth <= e.count(), e + " does not bound the true count " + truth);
      assertTrue(e.error() <= n / 32, "error above n / capacity: " + e);
    }
  }

  @Test
  void theSummaryKeepsSpaceSavingsGuaranteesThroughManyEvictions() {
    for (int capacity : new int[] {1, 3, 8, 64}) {
      SpaceSaving summary = new SpaceSaving(capacity);
      java.util.Map<Object, Long> truth = new java.util.HashMap<>();
      Random random = new Random(capacity);
      int offers = 40_000;
      for (int i = 0; i < offers; i++) {
        // Skewed: a few hot keys, many cold ones, integral and text keys mixed, colliding hashes included.
        long n = random.nextInt(4) == 0 ? random.nextInt(3) : random.nextInt(2_000);
        Object key = random.nextBoolean() ? (Object) n : "k" + n;
        if (key instanceof Long l) {
          summary.offer(l.longValue(), 0);
        } else {
          summary.offer(key, 0);
        }
        truth.merge(key, 1L, Long::sum);
      }
      List<SpaceSaving.Entry> entries = summary.entries();
      assertEquals(Math.min(capacity, truth.size()), entries.size(), capacity + " slots");
      assertEquals(offers, entries.stream().mapToLong(SpaceSaving.Entry::count).sum(),
          "Space-Saving's counts add up to the offers, " + capacity + " slots");
      assertEquals(entries.size(), entries.stream().map(SpaceSaving.Entry::key).distinct().count(),
          "no key held twice, " + capacity + " slots");
      for (SpaceSaving.Entry e : entries) {
        long actual = truth.get(e.key());
        assertTrue(e.count() - e.error() <= actual && actual <= e.count(),
            e + " against its true count " + actual + ", " + capacity + " slots");
      }
      for (var t : truth.entrySet()) {
        if (t.getValue() > offers / capacity) {
          assertTrue(entries.stream().anyMatch(e -> e.key().equals(t.getKey())),
              t + " is above n/capacity and must be held, " + capacity + " slots");
        }
      }
    }
  }

  @Test
  void oneKeyThatDominatesAShardIsReportedWithTheDirectoryAdvice() {
    BucketTraffic traffic = new BucketTraffic(1024, 4, 64);
    Random random = new Random(3);
    for (int i = 0; i < 8_000; i++) {
      traffic.record(i % 2 == 0 ? 777L : random.nextLong());
    }
    HotspotReport report = HotspotAnalysis.analyse(traffic, TWO_SHARDS);
    assertEquals(8_000, report.totalSessions());
    String owner = TWO_SHARDS.ownerOf(BucketStrategy.bucketOf(PgHash.hashLong(777), 1024));
    HotspotReport.Finding finding = report.findings().stream()
        .filter(f -> f.kind() == HotspotReport.Kind.KEY_DOMINATES_SHARD).findFirst().orElseThrow();
    assertEquals(owner, finding.shardId());
    assertEquals("777", finding.subject());
    assertTrue(finding.share() > 0.5 && finding.share() < 0.9, "share of the shard: " + finding.share());
    assertTrue(finding.advice().contains("shardwise.directory.777 = <shard>"), finding.advice());
    HotspotReport.ShardTraffic shard = report.shards().get(0);
    assertEquals(owner, shard.shardId(), "the busiest shard comes first");
    assertEquals(777L, shard.hottestKeys().get(0).key());
    assertTrue(report.findings().stream().noneMatch(f -> f.kind() == HotspotReport.Kind.BUCKET_DOMINATES_SHARD),
        "the key's bucket is explained by the key: " + report.findings());
  }

  @Test
  void aBucketOfManyKeysThatDominatesAShardIsToBeMoved() {
    BucketTraffic traffic = new BucketTraffic(1024, 4, 64);
    List<Long> sameBucket = new ArrayList<>();
    int target = BucketStrategy.bucketOf(PgHash.hashLong(1), 1024);
    for (long k = 1; sameBucket.size() < 50; k++) {
      if (BucketStrategy.bucketOf(PgHash.hashLong(k), 1024) == target) {
        sameBucket.add(k);
      }
    }
    Random random = new Random(5);
    for (int i = 0; i < 10_000; i++) {
      traffic.record(i % 2 == 0 ? sameBucket.get(i / 2 % 50) : random.nextLong());
    }
    HotspotReport report = HotspotAnalysis.analyse(traffic, TWO_SHARDS);
    HotspotReport.Finding finding = report.findings().stream()
        .filter(f -> f.kind() == HotspotReport.Kind.BUCKET_DOMINATES_SHARD).findFirst().orElseThrow();
    String owner = TWO_SHARDS.ownerOf(target);
    String other = owner.equals("s0") ? "s1" : "s0";
    assertEquals("bucket " + target, finding.subject());
    assertTrue(finding.advice().contains("--from " + owner + " --to " + other + " --buckets " + target),
        finding.advice());
    assertTrue(report.findings().stream().noneMatch(f -> f.kind() == HotspotReport.Kind.KEY_DOMINATES_SHARD),
        "no single key takes 20%: " + report.findings());
  }

  @Test
  void evenTrafficGivesNoFinding() {
    BucketTraffic traffic = new BucketTraffic(1024, 4, 64);
    Random random = new Random(9);
    for (int i = 0; i < 20_000; i++) {
      traffic.record(random.nextLong());
    }
    assertEquals(List.of(), HotspotAnalysis.analyse(traffic, TWO_SHARDS).findings());
  }

  @Test
  void resetStartsFromZero() {
    BucketTraffic traffic = new BucketTraffic(1024, 1, 8);
    traffic.record(1L);
    traffic.reset();
    assertEquals(0, java.util.Arrays.stream(traffic.bucketCounts()).sum());
    assertEquals(List.of(), traffic.hotKeys());
  }

  @Test
  void theSampleIntervalMustBeAPowerOfTwo() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new BucketTraffic(1024, 48, 8));
    assertTrue(e.getMessage().contains("48"), e.getMessage());
  }

  @Test
  void statisticsJudgeLowCardinalityAndGrowingRangeKeys() {
    ShardKeyCheck.KeyColumn orders = new ShardKeyCheck.KeyColumn("purchase_order", "merchant_id");
    List<ShardKeyWarning> warnings = new ArrayList<>();
    ShardKeyCheck.judge("s0", orders, 8, 0.1, 10_000, 1024, false, warnings);
    assertEquals(1, warnings.size());
    assertEquals(ShardKeyWarning.Kind.LOW_CARDINALITY, warnings.get(0).kind());
    assertTrue(warnings.get(0).message().contains("about 8 distinct values in 10,000 rows on s0"),
        warnings.get(0).message());

    warnings.clear();
    ShardKeyCheck.judge("s0", orders, 50, 0.1, 200, 1024, false, warnings);
    ShardKeyCheck.judge("s0", orders, 100_000, 0.99, 100_000, 1024, false, warnings);
    assertEquals(List.of(), warnings, "a small table, and a growing key under hashing, are fine");

    ShardKeyCheck.judge("s0", orders, 100_000, 0.99, 100_000, 1024, true, warnings);
    assertEquals(ShardKeyWarning.Kind.MONOTONIC, warnings.get(0).kind());
  }
}
