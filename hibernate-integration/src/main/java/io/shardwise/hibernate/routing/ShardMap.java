package io.shardwise.hibernate.routing;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An immutable, versioned view of the physical shards and of the assignment of logical buckets to
 * them. Routers swap whole snapshots; a snapshot never changes.
 *
 * <p>{@code bucketOwners[b]} is the id of the shard that owns bucket {@code b}; the number of
 * buckets is fixed for the life of a deployment (default 1024) because keys are never rehashed:
 * resharding moves whole buckets between shards.
 */
public final class ShardMap {
  public static final int DEFAULT_BUCKETS = 1024;

  private final long version;
  private final Map<String, ShardDescriptor> shards;
  private final String[] bucketOwners;

  public ShardMap(long version, List<ShardDescriptor> shards, String[] bucketOwners) {
    if (shards.isEmpty()) {
      throw new IllegalArgumentException("A shard map needs at least one shard");
    }
    Map<String, ShardDescriptor> byId = new LinkedHashMap<>();
    for (ShardDescriptor shard : shards) {
      if (byId.put(shard.id(), shard) != null) {
        throw new IllegalArgumentException("Shard id '" + shard.id() + "' appears twice in the shard map");
      }
    }
    if (bucketOwners.length < 1) {
      throw new IllegalArgumentException("A shard map needs at least one bucket");
    }
    String[] owners = new String[bucketOwners.length];
    for (int b = 0; b < bucketOwners.length; b++) {
      ShardDescriptor owner = byId.get(bucketOwners[b]);
      if (owner == null) {
        throw new IllegalArgumentException("Bucket " + b + " is assigned to '" + bucketOwners[b]
            + "', which is not a shard of the map " + byId.keySet());
      }
      owners[b] = owner.id();
    }
    this.version = version;
    this.shards = java.util.Collections.unmodifiableMap(byId);
    this.bucketOwners = owners;
  }

  /**
   * Assigns {@code buckets} buckets to the shards in proportion to their weights, each shard a
   * contiguous run (shard order as given).
   */
  public static ShardMap evenlyAssigned(long version, List<ShardDescriptor> shards, int buckets) {
    long totalWeight = shards.stream().mapToLong(ShardDescriptor::weight).sum();
    String[] owners = new String[buckets];
    int b = 0;
    long cumulative = 0;
    for (int i = 0; i < shards.size(); i++) {
      cumulative += shards.get(i).weight();
      int end = i == shards.size() - 1 ? buckets : (int) (cumulative * buckets / totalWeight);
      for (; b < end; b++) {
        owners[b] = shards.get(i).id();
      }
    }
    return new ShardMap(version, shards, owners);
  }

  public long version() {
    return version;
  }

  public Map<String, ShardDescriptor> shards() {
    return shards;
  }

  public ShardDescriptor shard(String id) {
    ShardDescriptor shard = shards.get(id);
    if (shard == null) {
      throw new IllegalArgumentException("No shard '" + id + "' in shard map version " + version + "; shards are "
          + shards.keySet());
    }
    return shard;
  }

  public int bucketCount() {
    return bucketOwners.length;
  }

  /** The owner of a bucket; no allocation, for the routing hot path. */
  public String ownerOf(int bucket) {
    return bucketOwners[bucket];
  }

  public String[] bucketOwnersCopy() {
    return bucketOwners.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ShardMap m && m.version == version && m.shards.equals(shards)
        && Arrays.equals(m.bucketOwners, bucketOwners);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(version) * 31 + shards.hashCode();
  }

  @Override
  public String toString() {
    return "ShardMap{version=" + version + ", shards=" + shards.keySet() + ", buckets=" + bucketOwners.length + "}";
  }
}
