package io.shardwise.hibernate.operations.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The Space-Saving summary of the most frequent keys (Metwally, Agrawal, El Abbadi, 2005) in a
 * fixed number of slots: a key already held gains one; a new key takes a free slot, or else a
 * slot with the smallest count, inheriting that count as its possible overestimate ({@code error}).
 * Any key seen more than {@code n / capacity} times out of {@code n} is held, and its count lies in
 * {@code [count - error, count]}.
 *
 * <p>Integral keys are held in a {@code long[]} so that offering one allocates nothing. Offers come
 * from the routing path: one that finds the summary busy is dropped instead of waiting (the sample
 * loses one key, the routing thread never blocks), so {@link #offer} takes no lock.
 *
 * <p>An offer costs a constant amount of work on average, not a walk of every slot:
 * <ul>
 *   <li>A key finds its slot through an open-addressing index (linear probing, twice as many cells
 *       as slots, a cell holding {@code slot + 1}); an evicted key leaves the index by backward-shift
 *       deletion, so no tombstones accumulate.
 *   <li>The smallest count is found by a cursor that walks the slots round-robin, looking for a slot
 *       at {@code floor}, a lower bound of the smallest count. Counts only grow, so {@code floor}
 *       stays a lower bound; when a whole turn finds no slot at {@code floor}, the turn has seen the
 *       true smallest count, which becomes the new {@code floor}. A turn that finds nothing thus
 *       follows at least one eviction per slot, and the walk costs O(1) per eviction on average.
 * </ul>
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
  /** Open-addressing index: {@code slot + 1} of the key hashed to the cell (or probed past it), 0 for empty. */
  private final int[] index;
  private final int indexMask;
  private int size;
  /** A lower bound of the smallest count, once every slot is taken. */
  private long floor;
  /** Where the search for a slot at {@link #floor} continues. */
  private int cursor;

  SpaceSaving(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("The key summary needs at least one slot, was " + capacity);
    }
    longKeys = new long[capacity];
    otherKeys = new Object[capacity];
    buckets = new int[capacity];
    counts = new long[capacity];
    errors = new long[capacity];
    index = new int[Integer.highestOneBit(capacity) * 4];
    indexMask = index.length - 1;
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
      int cell = cellOf(longKey, otherKey);
      for (int held; (held = index[cell]) != 0; cell = (cell + 1) & indexMask) {
        int i = held - 1;
        if (otherKey == null ? otherKeys[i] == null && longKeys[i] == longKey : otherKey.equals(otherKeys[i])) {
          counts[i]++;
          return;
        }
      }
      int slot;
      if (size < counts.length) {
        slot = size++;
        counts[slot] = 1;
        errors[slot] = 0;
      } else {
        slot = smallest();
        unindex(slot);
        errors[slot] = counts[slot];
        counts[slot]++;
        // The probe ended at an empty cell, but removing the evicted key may have shifted cells.
        cell = cellOf(longKey, otherKey);
        while (index[cell] != 0) {
          cell = (cell + 1) & indexMask;
        }
      }
      index[cell] = slot + 1;
      longKeys[slot] = longKey;
      otherKeys[slot] = otherKey;
      buckets[slot] = bucket;
    } finally {
      busy.set(false);
    }
  }

  /** A slot with the smallest count, found from {@link #cursor} (every slot is taken). */
  private int smallest() {
    int n = counts.length;
    long seen = Long.MAX_VALUE;
    int at = cursor;
    for (int step = 0; step < n; step++) {
      int i = cursor + step < n ? cursor + step : cursor + step - n;
      long c = counts[i];
      if (c <= floor) {
        cursor = i + 1 < n ? i + 1 : 0;
        return i;
      }
      if (c < seen) {
        seen = c;
        at = i;
      }
    }
    floor = seen;
    cursor = at + 1 < n ? at + 1 : 0;
    return at;
  }

  private int cellOf(long longKey, Object otherKey) {
    long h = otherKey == null ? longKey : otherKey.hashCode();
    h *= 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & indexMask;
  }

  /** Removes {@code slot}'s key from the index, moving back the cells probed past it. */
  private void unindex(int slot) {
    int cell = cellOf(longKeys[slot], otherKeys[slot]);
    while (index[cell] != slot + 1) {
      cell = (cell + 1) & indexMask;
    }
    int hole = cell;
    for (int next = (hole + 1) & indexMask; index[next] != 0; next = (next + 1) & indexMask) {
      int home = cellOf(longKeys[index[next] - 1], otherKeys[index[next] - 1]);
      // The entry at next may fill the hole unless its home lies cyclically in (hole, next].
      boolean homeBetween = hole <= next ? hole < home && home <= next : hole < home || home <= next;
      if (!homeBetween) {
        index[hole] = index[next];
        hole = next;
      }
    }
    index[hole] = 0;
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
      floor = 0;
      cursor = 0;
      java.util.Arrays.fill(otherKeys, null);
      java.util.Arrays.fill(index, 0);
    } finally {
      busy.set(false);
    }
  }
}
