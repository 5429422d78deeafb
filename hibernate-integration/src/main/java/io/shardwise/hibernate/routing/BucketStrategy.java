package io.shardwise.hibernate.routing;

import java.util.Collection;
import java.util.List;

/**
 * Routes a key to a logical bucket by its {@link PgHash} value, and the bucket to the shard that
 * owns it in a {@link ShardMap}.
 *
 * <p>The buckets are contiguous ranges of the signed 64-bit hash space, in signed order: bucket
 * {@code b} of {@code n} holds the hashes {@code h} with
 * {@code floor((h + 2^63) * n / 2^64) == b}, so bucket 0 starts at {@code Long.MIN_VALUE} and bucket
 * {@code n - 1} ends at {@code Long.MAX_VALUE}. Because the hash is PostgreSQL's own, the bucket of
 * every row can be computed by SQL as well ({@link #sqlBucket(ShardKeyType, String)}):
 *
 * <pre>{@code
 * BucketStrategy strategy = new BucketStrategy(map);
 * String shard = strategy.shardFor(orderId);                 // in the router
 * String where = strategy.sqlBucket(ShardKeyType.LONG, "tenant_id") + " = 17";  // rows of bucket 17
 * }</pre>
 *
 * <p>Resharding reassigns whole buckets in a new {@code ShardMap} (see
 * {@link ShardMap#withShardAdded}); keys never change bucket. Shard weights are honoured by how the
 * map assigns buckets ({@link ShardMap#evenlyAssigned}).
 *
 * <p>Routing a {@code long} is one hash, one shift (or multiply, if the bucket count is not a power
 * of two) and one array read, with no allocation.
 */
public final class BucketStrategy implements ShardingStrategy {
  private final ShardMap map;
  private final String[] owners;
  private final String[] readers;
  private final int buckets;
  /** {@code 64 - log2(buckets)} if the bucket count is a power of two above 1, else -1. */
  private final int shift;
  private final List<String> shards;

  public BucketStrategy(ShardMap map) {
    this.map = map;
    this.owners = map.bucketOwnersCopy();
    this.readers = map.hasSwitchedReads() ? map.readOwnersCopy() : owners;
    this.buckets = owners.length;
    this.shift = buckets > 1 && Integer.bitCount(buckets) == 1 ? 64 - Integer.numberOfTrailingZeros(buckets) : -1;
    this.shards = List.copyOf(map.shards().keySet());
  }

  /**
   * The bucket of a hash among {@code buckets} equal, contiguous ranges of the signed 64-bit space:
   * {@code floor((hash + 2^63) * buckets / 2^64)}; for a power of two {@code 2^k} that is
   * {@code (hash >> (64 - k)) + 2^(k-1)}.
   */
  public static int bucketOf(long hash, int buckets) {
    if (buckets < 1) {
      throw new IllegalArgumentException("The bucket count must be at least 1, was " + buckets);
    }
    return multiplyBucket(hash, buckets);
  }

  /** Exact {@code floor(u * n / 2^64)} for the unsigned offset {@code u = hash + 2^63}, in two halves. */
  static int multiplyBucket(long hash, int buckets) {
    long u = hash ^ Long.MIN_VALUE;
    long hi = (u >>> 32) * buckets;
    long lo = (u & 0xFFFFFFFFL) * buckets;
    return (int) ((hi + (lo >>> 32)) >>> 32);
  }

  /** The bucket of a hash under this strategy's map. */
  public int bucketOf(long hash) {
    return shift >= 0 ? (int) ((hash ^ Long.MIN_VALUE) >>> shift) : multiplyBucket(hash, buckets);
  }

  /** The bucket of a key. */
  public int bucketOfKey(Object key) {
    return bucketOf(ShardKeyType.of(key).hash(key));
  }

  /** The shard that owns bucket {@code bucket} of this strategy's map (a bucket from {@link #bucketOf(long)}). */
  public String ownerOf(int bucket) {
    return owners[bucket];
  }

  @Override
  public String shardFor(long key) {
    return owners[bucketOf(PgHash.hashLong(key))];
  }

  @Override
  public String shardFor(Object key) {
    return owners[bucketOf(ShardKeyType.of(key).hash(key))];
  }

  @Override
  public String readShardFor(long key) {
    return readers[bucketOf(PgHash.hashLong(key))];
  }

  @Override
  public String readShardFor(Object key) {
    return readers[bucketOf(ShardKeyType.of(key).hash(key))];
  }

  @Override
  public Collection<String> shards() {
    return shards;
  }

  /** The shard map this strategy routes by. */
  public ShardMap map() {
    return map;
  }

  /**
   * A PostgreSQL expression of type {@code integer} giving the bucket of a column (or expression)
   * of the given key type, equal to {@link #bucketOfKey(Object)} for every value. Use it to select
   * the rows of a bucket in a backfill or checksum, e.g.
   * {@code SELECT ... WHERE <expression> = 17}.
   */
  public String sqlBucket(ShardKeyType type, String column) {
    return sqlBucket(type, column, buckets);
  }

  /**
   * The smallest hash in bucket {@code bucket} of {@code buckets}: {@code ceil(bucket * 2^64 / n) - 2^63}.
   * A bucket's hashes are one contiguous run, from its lowest hash to the next bucket's minus one,
   * so {@code sqlBucket(...) = b} and {@code <hash> BETWEEN lowestHash(b) AND lowestHash(b + 1) - 1}
   * select the same rows (the second also for a run of buckets, with one comparison pair).
   */
  public static long lowestHash(int bucket, int buckets) {
    if (bucket < 0 || bucket >= buckets) {
      throw new IllegalArgumentException("Bucket " + bucket + " is not one of 0.." + (buckets - 1));
    }
    java.math.BigInteger n = java.math.BigInteger.valueOf(buckets);
    java.math.BigInteger[] qr = java.math.BigInteger.valueOf(bucket).shiftLeft(64).divideAndRemainder(n);
    java.math.BigInteger ceil = qr[1].signum() == 0 ? qr[0] : qr[0].add(java.math.BigInteger.ONE);
    return ceil.subtract(java.math.BigInteger.ONE.shiftLeft(63)).longValueExact();
  }

  /** {@link #sqlBucket(ShardKeyType, String)} for any bucket count. */
  public static String sqlBucket(ShardKeyType type, String column, int buckets) {
    if (buckets < 1) {
      throw new IllegalArgumentException("The bucket count must be at least 1, was " + buckets);
    }
    String hash = type.sqlHash(column);
    if (buckets == 1) {
      return "0";
    }
    if (Integer.bitCount(buckets) == 1) {
      // PostgreSQL's >> on bigint is an arithmetic shift, like Java's >>.
      return "((" + hash + " >> " + (64 - Integer.numberOfTrailingZeros(buckets)) + ") + " + buckets / 2 + ")::integer";
    }
    return "floor((" + hash + "::numeric + 9223372036854775808) * " + buckets
        + " / 18446744073709551616)::integer";
  }

  @Override
  public String toString() {
    return "BucketStrategy{" + map + "}";
  }
}
