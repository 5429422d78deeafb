package io.shardwise.hibernate.readwrite.internal;

import io.shardwise.hibernate.internal.ShardwiseConfig;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * How long one replica's recent hedgeable read-only units of work took (from the moment the unit
 * had its connection until it ended), and the hedge delay that follows: the configured percentile
 * of the last {@value #SIZE} units times the multiplier, within the floor and the ceiling. The
 * percentile is recomputed every {@value #RECOMPUTE_EVERY} units (a sort of at most
 * {@value #SIZE} longs), not on every read; until {@value #MIN_SAMPLES} units are known the delay
 * is the ceiling.
 */
final class ReadLatency {
  static final int SIZE = 256;
  static final int MIN_SAMPLES = 20;
  private static final int RECOMPUTE_EVERY = 16;

  private final long[] samples = new long[SIZE];
  private long recorded;
  private long computedAt = -1;
  private long delayNanos;

  synchronized void record(long nanos) {
    samples[(int) (recorded % SIZE)] = nanos;
    recorded++;
  }

  synchronized long delayNanos(ShardwiseConfig.ReadHedge settings) {
    if (recorded < MIN_SAMPLES) {
      return TimeUnit.MILLISECONDS.toNanos(settings.ceilingMs());
    }
    if (computedAt < 0 || recorded - computedAt >= RECOMPUTE_EVERY) {
      int n = (int) Math.min(recorded, SIZE);
      long[] sorted = Arrays.copyOf(samples, n);
      Arrays.sort(sorted);
      int rank = (int) Math.ceil(settings.percentile() / 100.0 * n) - 1;
      long percentile = sorted[Math.max(0, Math.min(n - 1, rank))];
      long delay = (long) (percentile * settings.multiplier());
      delayNanos = Math.max(TimeUnit.MILLISECONDS.toNanos(settings.floorMs()),
          Math.min(TimeUnit.MILLISECONDS.toNanos(settings.ceilingMs()), delay));
      computedAt = recorded;
    }
    return delayNanos;
  }
}
