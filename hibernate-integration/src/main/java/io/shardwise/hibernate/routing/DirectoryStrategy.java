package io.shardwise.hibernate.routing;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Routes listed keys to explicitly chosen shards, e.g. a large tenant isolated on its own shard or
 * tenants pinned to a region, and every other key to an optional fallback strategy.
 *
 * <pre>{@code
 * ShardingStrategy routing = new DirectoryStrategy(
 *     Map.of(42L, "tenant-42", "acme", "eu-1"),
 *     new BucketStrategy(map));                  // everyone else
 * }</pre>
 *
 * <p>Integral keys are compared by value: {@code Short 7}, {@code Integer 7} and {@code Long 7} are
 * one key. Without a fallback an unlisted key is an error. Routing a listed {@code long} key does
 * not box or allocate.
 */
public final class DirectoryStrategy implements ShardingStrategy {
  private final LongTable integral;
  private final Map<Object, String> others;
  private final ShardingStrategy fallback;
  private final List<String> shards;

  /**
   * @param directory key → shard id; keys are {@code Short}, {@code Integer}, {@code Long},
   *     {@code String} or {@code UUID}
   * @param fallback the strategy for unlisted keys, or {@code null} to reject them
   * @throws IllegalArgumentException on an unsupported key, a blank shard id, or two entries for the
   *     same key (e.g. {@code 7} and {@code 7L}) naming different shards
   */
  public DirectoryStrategy(Map<?, String> directory, ShardingStrategy fallback) {
    Map<Long, String> longs = new HashMap<>();
    Map<Object, String> rest = new HashMap<>();
    LinkedHashSet<String> ids = new LinkedHashSet<>();
    for (Map.Entry<?, String> e : directory.entrySet()) {
      Object key = canonical(e.getKey());
      String shard = e.getValue();
      if (shard == null || shard.isBlank()) {
        throw new IllegalArgumentException("Directory key '" + key + "' has no shard id; map it to a shard");
      }
      shard = shard.intern();
      String previous = key instanceof Long l ? longs.put(l, shard) : rest.put(key, shard);
      if (previous != null && !previous.equals(shard)) {
        throw new IllegalArgumentException("Directory key " + key + " is mapped to both '" + previous + "' and '"
            + shard + "' (integral keys compare by value); keep one entry");
      }
      ids.add(shard);
    }
    if (fallback != null) {
      ids.addAll(fallback.shards());
    }
    this.integral = new LongTable(longs);
    this.others = Map.copyOf(rest);
    this.fallback = fallback;
    this.shards = List.copyOf(ids);
  }

  /** A directory without fallback: unlisted keys are rejected. */
  public DirectoryStrategy(Map<?, String> directory) {
    this(directory, null);
  }

  /** Integral keys as {@code Long}; String and UUID as they are; anything else rejected. */
  static Object canonical(Object key) {
    if (key instanceof Long) {
      return key;
    }
    if (key instanceof Integer || key instanceof Short) {
      return ((Number) key).longValue();
    }
    if (key instanceof String || key instanceof java.util.UUID) {
      return key;
    }
    throw ShardKeyType.unsupportedKey(key);
  }

  @Override
  public String shardFor(long key) {
    String shard = integral.get(key);
    if (shard != null) {
      return shard;
    }
    if (fallback == null) {
      throw notListed(key);
    }
    return fallback.shardFor(key);
  }

  @Override
  public String shardFor(Object key) {
    Object k = canonical(key);
    if (k instanceof Long l) {
      return shardFor(l.longValue());
    }
    String shard = others.get(k);
    if (shard != null) {
      return shard;
    }
    if (fallback == null) {
      throw notListed(k);
    }
    return fallback.shardFor(k);
  }

  private static IllegalArgumentException notListed(Object key) {
    return new IllegalArgumentException("Key '" + key + "' is not in the shard directory and there is no fallback"
        + " strategy; add the key to the directory or configure a fallback");
  }

  @Override
  public Collection<String> shards() {
    return shards;
  }

  /** Open addressing from long keys to shard ids; immutable once built. */
  static final class LongTable {
    private final long[] keys;
    private final String[] values;
    private final int mask;

    LongTable(Map<Long, String> entries) {
      int capacity = Integer.highestOneBit(Math.max(4, entries.size() * 2 + 1)) << 1;
      keys = new long[capacity];
      values = new String[capacity];
      mask = capacity - 1;
      for (Map.Entry<Long, String> e : entries.entrySet()) {
        int i = slot(e.getKey());
        while (values[i] != null) {
          i = (i + 1) & mask;
        }
        keys[i] = e.getKey();
        values[i] = e.getValue();
      }
    }

    String get(long key) {
      for (int i = slot(key); values[i] != null; i = (i + 1) & mask) {
        if (keys[i] == key) {
          return values[i];
        }
      }
      return null;
    }

    private int slot(long key) {
      long h = key * 0x9E3779B97F4A7C15L;
      return (int) (h ^ h >>> 32) & mask;
    }
  }
}
