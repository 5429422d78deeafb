package io.shardwise.hibernate.resharding;

import io.shardwise.hibernate.ShardwiseException;

/**
 * A write reached a shard that no longer owns the row's bucket, or that is handing it over right
 * now: an online move froze or switched the bucket while this router was routing with an older shard
 * map. Nothing of the unit of work was committed. The router has already refreshed its map when this
 * is thrown, so <em>retrying the whole unit of work</em> (a new route from
 * {@code shards.forKey(key)}) sends it to the new owner.
 *
 * <p>The shard refuses such writes itself (a fence trigger installed by the move, SQLSTATE
 * {@value #SQLSTATE_MOVED} or {@value #SQLSTATE_FROZEN}), so a router that missed every notification
 * still cannot write to the old owner.
 */
public class BucketMovedException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  /** The SQLSTATE a fenced shard raises for a write to a bucket it no longer owns. */
  public static final String SQLSTATE_MOVED = "SW002";

  /** The SQLSTATE a shard raises for a write to a bucket frozen by a write switch for longer than it may wait. */
  public static final String SQLSTATE_FROZEN = "SW001";

  private final int bucket;
  private final String newOwner;
  private final long mapVersion;

  public BucketMovedException(String message, int bucket, String newOwner, long mapVersion, Throwable cause) {
    super(message, cause);
    this.bucket = bucket;
    this.newOwner = newOwner;
    this.mapVersion = mapVersion;
  }

  /** The bucket of the refused write, or -1 when the shard did not say. */
  public int bucket() {
    return bucket;
  }

  /** The shard that owns the bucket now, or null while the move is still switching (frozen). */
  public String newOwner() {
    return newOwner;
  }

  /** The shard map version that made the move, or -1 when not known yet. */
  public long mapVersion() {
    return mapVersion;
  }

  /** Always true: the unit of work may be retried as a whole. */
  public boolean isRetryable() {
    return true;
  }
}
