package io.shardwise.hibernate.routing;

import io.shardwise.hibernate.ShardwiseException;

/**
 * This router could not confirm its shard map with the control database for longer than its lease
 * ({@code shardwise.control.router_lease_ms}), so it refuses work whose answer depends on the map:
 * routing by key (reads and writes) and scatter-gather. An online move does not wait for a router
 * whose lease ran out, so such a router may not know of a move's copy or switch, and could read
 * moving rows twice or write to a shard that is about to delete them.
 *
 * <p>Nothing was sent to any shard. The router keeps trying to reach the control database; the
 * first poll that succeeds loads the newest map and lifts the refusal, so <em>retrying the unit of
 * work later</em> is safe. Sessions on a named shard ({@code forShard}) are not refused.
 */
public class ShardMapStaleException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  private final long mapVersion;
  private final long unconfirmedMs;
  private final long leaseMs;

  public ShardMapStaleException(String message, long mapVersion, long unconfirmedMs, long leaseMs) {
    super(message);
    this.mapVersion = mapVersion;
    this.unconfirmedMs = unconfirmedMs;
    this.leaseMs = leaseMs;
  }

  /** The version of the map this router holds, which it could not confirm. */
  public long mapVersion() {
    return mapVersion;
  }

  /** How long ago this router last confirmed its map with the control database (ms). */
  public long unconfirmedMs() {
    return unconfirmedMs;
  }

  /** The router's lease (ms). */
  public long leaseMs() {
    return leaseMs;
  }

  /** Always true: retry once the control database can be reached. */
  public boolean isRetryable() {
    return true;
  }
}
