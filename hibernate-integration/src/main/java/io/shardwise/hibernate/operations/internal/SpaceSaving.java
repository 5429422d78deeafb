package io.shardwise.hibernate.operations.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The Space-Saving summary of the most frequent keys (Metwally, Agrawal, El Abbadi, 2005) in a
 * fixed number of slots: a key already held gains one; a new key takes a free slot, or else the
 * slot with the smallest count, inheriting that count as its possible overestimate ({@code error}).
 * Any key seen more than {@code n / capacity} times out of {@code n} is held, and its count lies in
 * {@code [count - error, count]}.
 *
 * <p>Integral keys are held in a {@code long[]} so that offering one allocates nothing. Offers come
 * from the routing path: one that finds the summary busy is dropped instead of waiting (the sample
 * loses one key, the routing thread never blocks), so {@link #offer} takes no lock.
 */
final class SpaceSaving {
  /** One key of the summary, as counted when {@link #entries()} was called. */
  record Entry(Object key, int bucket, long count, long error) {}

  private final AtomicBoolean busy = new AtomicBoolean();
  private final long[] longKeys;
  private final Object[] otherKeys;
  private final int[] buckets;
  private final long[] counts;
  private final long[] errors;
  private int size;

  SpaceSaving(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("The key summary needs at least one slot, was " + capacity);
    }
    longKeys = new long[capacity];
    otherKeys = new Object[capacity];
    buckets = new int[capacity];
    counts = new long[capacity];
    errors = new long[capacity];
  }

  /** Counts an integral key; allocates nothing. */
  void offer(long key, int bucket) {
    offer(key, null, bucket);
  }

  /** Counts a key that is not integral (String, UUID). */
  void offer(Object key, int bucket) {
    offer(0, key, bucket);
  }

  /** {@code otherKey} null: the key is {@code longKey} (a null slot of {@code otherKeys} marks an integral key). */
  private void offer(long longKey, Object otherKey, int bucket) {
    if (!busy.compareAndSet(false, true)) {
      return;
    }
    try {
      int smallest = 0;
      for (int i = 0; i < size; i++) {
        if (otherKey == null ? otherKeys[i] == null && longKeys[i] == longKey : otherKey.equals(otherKeys[i])) {
          counts[i]++;
          return;
        }
        if (counts[i] < counts[smallest]) {
          smallest = i;
        }
      }
      int slot = take(smallest);
      longKeys[slot] = longKey;
      otherKeys[slot] = otherKey;
      buckets[slot] = bucket;
    } finally {
      busy.set(false);
    }
  }

  /** A free slot with count 1, or the smallest one, evicted: its count becomes the newcomer's error. */
  private int take(int smallest) {
    if (size < counts.length) {
      int slot = size++;
      counts[slot] = 1;
      errors[slot] = 0;
      return slot;
    }
    errors[smallest] = counts[smallest];
    counts[smallest]++;
    return smallest;
  }

  /** The keys held, highest count first. Waits for an offer in progress to finish. */
  List<Entry> entries() {
    while (!busy.compareAndSet(false, true)) {
      Thread.onSpinWait();
    }
    try {
      List<Entry> all = new ArrayList<>(size);
      for (int i = 0; i < size; i++) {
        all.add(new Entry(otherKeys[i] != null ? otherKeys[i] : (Object) longKeys[i], buckets[i], counts[i],
            errors[i]));
      }
      all.sort(Comparator.comparingLong(Entry::count).reversed());
      return all;
    } finally {
      busy.set(false);
    }
  }

  void clear() {
    while (!busy.compareAndSet(false, true)) {
      Thread.onSpinWait();
    }
    try {
      size = 0;
      java.util.Arrays.fill(otherKeys, null);
    } finally {
      busy.set(false);
    }
  }
}
