package io.shardwise.hibernate.routing;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * A consistent-hash ring with weighted virtual nodes. Each shard of weight {@code w} places
 * {@code w * vnodesPerWeight} points on the ring of signed 64-bit values, at
 * {@code PgHash.hashText(shardId + "#" + i)}; a key belongs to the first point at or after its
 * {@link PgHash} value, wrapping past {@code Long.MAX_VALUE} to the smallest point.
 *
 * <p>Adding a shard moves only the keys that its new points capture, about
 * {@code weight / total weight} of them. More virtual nodes give a more even spread at the price of
 * a larger table (16 bytes per point) and a slightly deeper binary search; 256 per unit of weight
 * is the default. Unlike {@link BucketStrategy}, placement is not a fixed bucket table, so
 * PostgreSQL cannot select the rows of one shard without knowing the ring's points.
 *
 * <p>The ring is a sorted {@code long[]} of points and a parallel array of owners; routing is a
 * binary search, with no allocation for a {@code long} key.
 */
public final class ConsistentHashRing implements ShardingStrategy {
  /** Virtual nodes per unit of shard weight when not configured. */
  public static final int DEFAULT_VNODES_PER_WEIGHT = 256;

  private final long[] points;
  private final String[] owners;
  private final int vnodesPerWeight;
  private final List<String> shards;

  /** A ring over the shards of a map with {@value #DEFAULT_VNODES_PER_WEIGHT} points per unit of weight. */
  public ConsistentHashRing(ShardMap map) {
    this(map.shards().values(), DEFAULT_VNODES_PER_WEIGHT);
  }

  /**
   * A ring over the given shards.
   *
   * @param vnodesPerWeight points per unit of {@link ShardDescriptor#weight()}, 1 to 65536
   */
  public ConsistentHashRing(Collection<ShardDescriptor> shardList, int vnodesPerWeight) {
    if (vnodesPerWeight < 1 || vnodesPerWeight > 65_536) {
      throw new IllegalArgumentException("vnodesPerWeight must be between 1 and 65536, was " + vnodesPerWeight
          + "; 256 is a good default");
    }
    if (shardList.isEmpty()) {
      throw new IllegalArgumentException("A consistent-hash ring needs at least one shard");
    }
    LinkedHashSet<String> ids = new LinkedHashSet<>();
    long total = 0;
    for (ShardDescriptor shard : shardList) {
      if (!ids.add(shard.id())) {
        throw new IllegalArgumentException("Shard id '" + shard.id() + "' appears twice; give every shard its own id");
      }
      total += (long) shard.weight() * vnodesPerWeight;
    }
    if (total > 1 << 24) {
      throw new IllegalArgumentException("The ring would have " + total + " points (weights x vnodesPerWeight "
          + vnodesPerWeight + "); lower vnodesPerWeight or the weights so that it stays under 16777216");
    }
    int size = (int) total;
    long[] rawPoints = new long[size];
    String[] rawOwners = new String[size];
    int p = 0;
    for (ShardDescriptor shard : shardList) {
      int count = shard.weight() * vnodesPerWeight;
      for (int i = 0; i < count; i++) {
        rawPoints[p] = PgHash.hashText(shard.id() + "#" + i);
        rawOwners[p] = shard.id();
        p++;
      }
    }
    // Sort by point; on the (astronomically unlikely) equal point, by owner id, so that every
    // instance builds the same ring whatever the order of the shard list.
    Integer[] order = new Integer[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    Arrays.sort(order, Comparator.<Integer>comparingLong(i -> rawPoints[i]).thenComparing(i -> rawOwners[i]));
    this.points = new long[size];
    this.owners = new String[size];
    for (int i = 0; i < size; i++) {
      points[i] = rawPoints[order[i]];
      owners[i] = rawOwners[order[i]];
    }
    this.vnodesPerWeight = vnodesPerWeight;
    this.shards = List.copyOf(new ArrayList<>(ids));
  }

  @Override
  public String shardFor(long key) {
    return ownerOfHash(PgHash.hashLong(key));
  }

  @Override
  public String shardFor(Object key) {
    return ownerOfHash(ShardKeyType.of(key).hash(key));
  }

  /** The owner of a hash value: the first point at or after it, wrapping around. */
  public String ownerOfHash(long hash) {
    int i = Arrays.binarySearch(points, hash);
    if (i < 0) {
      i = -i - 1;
      if (i == points.length) {
        i = 0;
      }
    }
    return owners[i];
  }

  @Override
  public Collection<String> shards() {
    return shards;
  }

  /** Points per unit of weight. */
  public int vnodesPerWeight() {
    return vnodesPerWeight;
  }

  /** The number of points on the ring. */
  public int pointCount() {
    return points.length;
  }

  @Override
  public String toString() {
    return "ConsistentHashRing{shards=" + shards + ", vnodesPerWeight=" + vnodesPerWeight + "}";
  }
}
