package io.shardwise.hibernate.readwrite;

/**
 * What a consistency scope needs from one shard after its writes: a replica that has replayed
 * {@code minLsn} (LSN mode; 0 when none), or the primary until {@code primaryUntilMillis} (TIME
 * mode; 0 when none). {@code maxWaitMillis} bounds how long a read may wait for a replica to catch
 * up. The pin is forgotten after {@code expiresAtMillis}.
 */
public record Pin(long minLsn, long primaryUntilMillis, long maxWaitMillis, long expiresAtMillis) {

  /** The stronger of two pins: later LSN, longer window, longer wait, later expiry. */
  public Pin merge(Pin other) {
    if (other == null) {
      return this;
    }
    return new Pin(Long.compareUnsigned(minLsn, other.minLsn) >= 0 ? minLsn : other.minLsn,
        Math.max(primaryUntilMillis, other.primaryUntilMillis), Math.max(maxWaitMillis, other.maxWaitMillis),
        Math.max(expiresAtMillis, other.expiresAtMillis));
  }

  public boolean expired(long nowMillis) {
    return nowMillis >= expiresAtMillis;
  }
}
