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
 *
 * <p>While a bucket moves, its reads may be served by another shard than its writes:
 * {@code readOwnerOf(b)} is the shard that serves read-only sessions of bucket {@code b} (the
 * write owner unless a move has switched its reads to the target).
 *
 * <p>While a bucket moves, two shards hold its rows: from the start of the copy until the move
 * completes or is cancelled, {@code copyHolderOf(b)} names the shard that holds the other copy (the
 * target until the write switch, the old owner after it; null when the bucket does not move).
 * Scatter-gather reads each such bucket from {@code readOwnerOf(b)} only; without it a query over
 * all shards would count the moving rows twice.
 */
public final class ShardMap {
  public static final int DEFAULT_BUCKETS = 1024;

  private final long version;
  private final Map<String, ShardDescriptor> shards;
  private final String[] bucketOwners;
  /** The shard serving reads of each bucket; the same array as {@link #bucketOwners} when no read is switched. */
  private final String[] readOwners;
  /** For each bucket, the shard holding a second copy of its rows during a move, else null; null when no bucket has one. */
  private final String[] copyHolders;

  public ShardMap(long version, List<ShardDescriptor> shards, String[] bucketOwners) {
    this(version, shards, bucketOwners, null, null);
  }

  public ShardMap(long version, List<ShardDescriptor> shards, String[] bucketOwners, String[] readOwners) {
    this(version, shards, bucketOwners, readOwners, null);
  }

  /**
   * @param readOwners for each bucket, the shard that serves its reads when that is not its owner
   *     (a move has switched the bucket's reads), else null; the array itself may be null
   * @param copyHolders for each bucket, the shard that holds a second copy of its rows while it
   *     moves (neither its owner nor null), else null; the array itself may be null
   */
  public ShardMap(long version, List<ShardDescriptor> shards, String[] bucketOwners, String[] readOwners,
      String[] copyHolders) {
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
    String[] readers = secondShards(byId, owners, readOwners, "read owners", "The reads of bucket %d are switched to");
    String[] copies = secondShards(byId, owners, copyHolders, "copy holders", "Bucket %d has a copy on");
    if (readers != null) {
      for (int b = 0; b < readers.length; b++) {
        readers[b] = readers[b] == null ? owners[b] : readers[b];
      }
    }
    this.version = version;
    this.shards = java.util.Collections.unmodifiableMap(byId);
    this.bucketOwners = owners;
    this.readOwners = readers == null ? owners : readers;
    this.copyHolders = copies;
  }

  /**
   * A per-bucket shard besides the owner (read owner, copy holder), checked against the map, with
   * entries equal to the owner made null; null when no bucket has one.
   */
  private static String[] secondShards(Map<String, ShardDescriptor> byId, String[] owners, String[] given,
      String what, String bucketIs) {
    if (given == null) {
      return null;
    }
    if (given.length != owners.length) {
      throw new IllegalArgumentException("The shard map has " + owners.length + " buckets but " + given.length
          + " " + what);
    }
    String[] out = null;
    for (int b = 0; b < given.length; b++) {
      if (given[b] != null && !given[b].equals(owners[b])) {
        ShardDescriptor shard = byId.get(given[b]);
        if (shard == null) {
          throw new IllegalArgumentException(String.format(bucketIs, b) + " '" + given[b]
              + "', which is not a shard of the map " + byId.keySet());
        }
        if (out == null) {
          out = new String[owners.length];
        }
        out[b] = shard.id();
      }
    }
    return out;
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

  /**
   * A new map, one version later, with {@code added} as an extra shard that takes over its fair
   * share of the buckets ({@code buckets * weight / total weight}, rounded) and no more. Only
   * buckets that go to the new shard move; they are taken one at a time from whichever existing
   * shard is furthest above its own new fair share, so the existing shards give up buckets in
   * proportion to their weights and stay balanced. Re-running {@link #evenlyAssigned} instead would
   * shift the boundaries of every run and move far more buckets.
   *
   * <p>Adding to a map of N equal shards moves about {@code 1/(N+1)} of the buckets (and so of the
   * keys), the minimum for the new shard to hold its share.
   *
   * @throws IllegalArgumentException if a shard with the same id is already in the map
   */
  public ShardMap withShardAdded(ShardDescriptor added) {
    if (shards.containsKey(added.id())) {
      throw new IllegalArgumentException("Shard '" + added.id() + "' is already in shard map version " + version
          + "; give the new shard an id not in " + shards.keySet());
    }
    List<ShardDescriptor> all = new java.util.ArrayList<>(shards.values());
    all.add(added);
    int n = all.size();
    int buckets = bucketOwners.length;
    long totalWeight = all.stream().mapToLong(ShardDescriptor::weight).sum();
    int newIndex = n - 1;
    // surplus[i] = buckets held now minus the fair share after the addition (scaled by totalWeight
    // so that it stays an exact integer).
    long[] surplus = new long[n];
    Map<String, Integer> index = new java.util.HashMap<>();
    for (int i = 0; i < n; i++) {
      index.put(all.get(i).id(), i);
      surplus[i] = -(long) buckets * all.get(i).weight();
    }
    int[] held = new int[n];
    for (String owner : bucketOwners) {
      int i = index.get(owner);
      surplus[i] += totalWeight;
      held[i]++;
    }
    int toMove = (int) Math.round((double) buckets * added.weight() / totalWeight);
    String[] owners = bucketOwners.clone();
    toMove = Math.min(toMove, buckets - 1); // never empty the map's old shards entirely
    for (int moved = 0; moved < toMove; moved++) {
      int from = -1;
      for (int i = 0; i < newIndex; i++) {
        if (held[i] > 0 && (from < 0 || surplus[i] > surplus[from])) {
          from = i;
        }
      }
      String donor = all.get(from).id();
      int b = owners.length - 1;
      while (owners[b] != donor) {
        b--; // ids are interned, so identity comparison is exact
      }
      owners[b] = added.id();
      surplus[from] -= totalWeight;
      held[from]--;
    }
    return new ShardMap(version + 1, all, owners, readOwnersOrNull(), copyHolders);
  }

  private String[] readOwnersOrNull() {
    return readOwners == bucketOwners ? null : readOwners.clone();
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

  /** The shard that serves read-only sessions of a bucket: its owner unless a move switched its reads; no allocation. */
  public String readOwnerOf(int bucket) {
    return readOwners[bucket];
  }

  /** Whether the reads of some bucket are served by another shard than its owner (a move is between its switches). */
  public boolean hasSwitchedReads() {
    return readOwners != bucketOwners;
  }

  /**
   * The shard that holds a second, non-authoritative copy of a bucket's rows while the bucket moves
   * (the target from the start of the copy, the old owner after the write switch), or null when
   * the bucket does not move. Only one of the two copies may be read: {@link #readOwnerOf}'s.
   */
  public String copyHolderOf(int bucket) {
    return copyHolders == null ? null : copyHolders[bucket];
  }

  /** Whether some bucket's rows sit on two shards (a move is between its copy and its end). */
  public boolean hasCopies() {
    return copyHolders != null;
  }

  /**
   * The buckets whose rows {@code shardId} holds but must not be read from it: it holds a copy of
   * the bucket (as its owner or as the copy holder) and is not the bucket's read owner. Empty when
   * no bucket moves. Scatter-gather filters these out of that shard's rows.
   */
  public java.util.BitSet bucketsNotReadFrom(String shardId) {
    java.util.BitSet out = new java.util.BitSet(bucketOwners.length);
    if (copyHolders == null) {
      return out;
    }
    for (int b = 0; b < bucketOwners.length; b++) {
      String copy = copyHolders[b];
      if (copy != null && (copy.equals(shardId) || bucketOwners[b].equals(shardId))
          && !readOwners[b].equals(shardId)) {
        out.set(b);
      }
    }
    return out;
  }

  /** The read owner of every bucket (equal to the owner where reads are not switched). */
  public String[] readOwnersCopy() {
    return readOwners.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ShardMap m && m.version == version && m.shards.equals(shards)
        && Arrays.equals(m.bucketOwners, bucketOwners) && Arrays.equals(m.readOwners, readOwners)
        && Arrays.equals(m.copyHolders, copyHolders);
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
