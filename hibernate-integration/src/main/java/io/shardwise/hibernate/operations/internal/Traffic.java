package io.shardwise.hibernate.operations.internal;

import io.shardwise.hibernate.routing.PgHash;
import io.shardwise.hibernate.routing.ShardKeyType;
import io.shardwise.hibernate.routing.internal.BucketCounter;

/**
 * Where routed sessions are counted: one call from {@code ShardedSessions.forKey} (for an integral
 * key, from inside the router's lookup, with the bucket it computed). The recorder is
 * picked once when the session factory starts ({@link #none()} when hotspot counting is off, or
 * when the strategy has no buckets), so the routing path never tests a flag.
 */
public abstract class Traffic implements BucketCounter {
  private static final Traffic NONE = new Traffic() {
    @Override
    public void record(long key) {
    }

    @Override
    public void count(long key, int bucket) {
    }

    @Override
    public void record(Object key) {
    }

    @Override
    public void count(Object key, int bucket) {
    }
  };

  /** Counts one routed session of an integral key; no boxing, no allocation, no lock. */
  public abstract void record(long key);

  /**
   * Counts one routed session of an integral key whose bucket the router has computed (same hash,
   * same bucket count), so the key is not hashed again.
   */
  @Override
  public abstract void count(long key, int bucket);

  /** {@link #record(long)}: the router's strategy has no buckets. */
  @Override
  public final void count(long key) {
    record(key);
  }

  /** Counts one routed session of any key type. */
  public abstract void record(Object key);

  /**
   * Counts one routed session of any key type whose bucket the router has computed (same hash,
   * same bucket count), so the key is not hashed again.
   */
  @Override
  public abstract void count(Object key, int bucket);

  /** {@link #record(Object)}: the router's strategy has no buckets. */
  @Override
  public final void count(Object key) {
    record(key);
  }

  /** A recorder that counts nothing. */
  public static Traffic none() {
    return NONE;
  }

  /** The routing hash of a key of any supported type (integral keys hash by value). */
  static long hashOf(Object key) {
    return key instanceof Long || key instanceof Integer || key instanceof Short
        ? PgHash.hashLong(((Number) key).longValue())
        : ShardKeyType.of(key).hash(key);
  }
}
