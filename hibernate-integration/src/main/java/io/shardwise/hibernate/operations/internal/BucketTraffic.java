package io.shardwise.hibernate.operations.internal;

import io.shardwise.hibernate.routing.BucketStrategy;
import io.shardwise.hibernate.routing.PgHash;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counts routed sessions per bucket, and feeds a sample of their keys to a {@link SpaceSaving}
 * summary.
 *
 * <p>The counters are one {@link AtomicLongArray} cut into stripes of one counter per bucket; a
 * thread increments the stripe its identity hash picks, so two threads routing to the same bucket
 * usually touch different cache lines. An increment is one atomic add: no lock, no allocation.
 * Reading sums the stripes, so a report sees every increment that happened before it began.
 *
 * <p>Sampling needs no state of its own: the value a counter held before its increment decides. A
 * key is offered to the summary when that value is a multiple of the sample interval, so the
 * summary sees about one session in {@code sampleEvery} of each bucket, and a hot key in
 * proportion to its traffic.
 */
public final class BucketTraffic extends Traffic {
  private final int buckets;
  private final int shift;
  private final int stripeMask;
  private final long sampleMask;
  private final AtomicLongArray counts;
  private final SpaceSaving keys;

  /**
   * @param buckets the bucket count of the shard map (fixed for a deployment)
   * @param sampleEvery one key in this many is offered to the summary; a power of two
   * @param trackedKeys how many keys the summary holds
   */
  public BucketTraffic(int buckets, int sampleEvery, int trackedKeys) {
    if (sampleEvery < 1 || Integer.bitCount(sampleEvery) != 1) {
      throw new IllegalArgumentException("The key sample interval must be a power of two, was " + sampleEvery);
    }
    this.buckets = buckets;
    this.shift = buckets > 1 && Integer.bitCount(buckets) == 1 ? 64 - Integer.numberOfTrailingZeros(buckets) : -1;
    int stripes = Integer.highestOneBit(Math.max(1, Runtime.getRuntime().availableProcessors()) * 2 - 1);
    this.stripeMask = Math.min(stripes, 16) - 1;
    this.sampleMask = sampleEvery - 1L;
    this.counts = new AtomicLongArray((stripeMask + 1) * buckets);
    this.keys = new SpaceSaving(trackedKeys);
  }

  @Override
  public void record(long key) {
    int bucket = bucketOf(PgHash.hashLong(key));
    if ((increment(bucket) & sampleMask) == 0) {
      keys.offer(key, bucket);
    }
  }

  @Override
  public void count(long key, int bucket) {
    if (bucket >= buckets) {
      // The router's map has another bucket count than the one counted: count by this one.
      record(key);
      return;
    }
    if ((increment(bucket) & sampleMask) == 0) {
      keys.offer(key, bucket);
    }
  }

  @Override
  public void record(Object key) {
    offerSampled(key, bucketOf(hashOf(key)));
  }

  @Override
  public void count(Object key, int bucket) {
    if (bucket >= buckets) {
      record(key);
      return;
    }
    offerSampled(key, bucket);
  }

  private void offerSampled(Object key, int bucket) {
    if ((increment(bucket) & sampleMask) == 0) {
      if (key instanceof Long || key instanceof Integer || key instanceof Short) {
        keys.offer(((Number) key).longValue(), bucket);
      } else {
        keys.offer(key, bucket);
      }
    }
  }

  private long increment(int bucket) {
    int stripe = mix(System.identityHashCode(Thread.currentThread())) & stripeMask;
    return counts.getAndIncrement(stripe * buckets + bucket);
  }

  private static int mix(int h) {
    return h ^ (h >>> 16);
  }

  private int bucketOf(long hash) {
    return shift >= 0 ? (int) ((hash ^ Long.MIN_VALUE) >>> shift) : BucketStrategy.bucketOf(hash, buckets);
  }

  /** Sessions routed to each bucket so far (the stripes summed). */
  public long[] bucketCounts() {
    long[] sums = new long[buckets];
    for (int i = 0; i < counts.length(); i++) {
      sums[i % buckets] += counts.get(i);
    }
    return sums;
  }

  /** The key summary's entries, hottest first. */
  public java.util.List<SpaceSaving.Entry> hotKeys() {
    return keys.entries();
  }

  /** One key offered to the summary stands for this many routed sessions. */
  public long sampleEvery() {
    return sampleMask + 1;
  }

  public int buckets() {
    return buckets;
  }

  /** Starts counting again from zero (counters and key summary). */
  public void reset() {
    for (int i = 0; i < counts.length(); i++) {
      counts.set(i, 0);
    }
    keys.clear();
  }
}
