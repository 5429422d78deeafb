package io.shardwise.benchmarks;

import java.util.Arrays;

/** A growable array of longs: latencies recorded without boxing, sorted once for percentiles. */
final class LongList {
  private long[] values = new long[1024];
  private int size;

  void add(long v) {
    if (size == values.length) {
      values = Arrays.copyOf(values, size * 2);
    }
    values[size++] = v;
  }

  void addAll(LongList other) {
    for (int i = 0; i < other.size; i++) {
      add(other.values[i]);
    }
  }

  void addAll(long[] other) {
    for (long v : other) {
      add(v);
    }
  }

  int size() {
    return size;
  }

  /** A sorted copy of the values. */
  long[] sorted() {
    long[] copy = Arrays.copyOf(values, size);
    Arrays.sort(copy);
    return copy;
  }
}
