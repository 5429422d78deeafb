package io.shardwise.hibernate.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link BucketStrategy#lowestHash}: each bucket is the contiguous run of hashes the router maps to it. */
class BucketHashRangeTest {

  @Test
  void everyBucketStartsAtItsLowestHashAndEndsJustBeforeTheNext() {
    for (int buckets : new int[] {1, 2, 3, 7, 1000, 1024, 4096}) {
      assertEquals(Long.MIN_VALUE, BucketStrategy.lowestHash(0, buckets));
      for (int b = 0; b < buckets; b++) {
        long lo = BucketStrategy.lowestHash(b, buckets);
        assertEquals(b, BucketStrategy.bucketOf(lo, buckets), "lowest hash of bucket " + b + " of " + buckets);
        if (b > 0) {
          assertEquals(b - 1, BucketStrategy.bucketOf(lo - 1, buckets), "hash before bucket " + b + " of " + buckets);
        }
      }
    }
  }

  @Test
  void randomHashesFallBetweenTheBoundsOfTheirBucket() {
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 100_000; i++) {
      long hash = random.nextLong();
      int buckets = i % 2 == 0 ? 1024 : 1000;
      int b = BucketStrategy.bucketOf(hash, buckets);
      long lo = BucketStrategy.lowestHash(b, buckets);
      long hi = b == buckets - 1 ? Long.MAX_VALUE : BucketStrategy.lowestHash(b + 1, buckets) - 1;
      assertEquals(true, lo <= hash && hash <= hi, hash + " in bucket " + b + " [" + lo + ", " + hi + "]");
    }
  }
}
