package io.shardwise.hibernate.readwrite.internal;

import io.shardwise.hibernate.readwrite.Pin;
import io.shardwise.hibernate.readwrite.PinStore;

/**
 * The pins of consistency scopes: set after a scope's write transaction commits on a shard, read
 * before the scope's next read-only session on that shard.
 */
public final class ReadYourWritesPins {
  private final PinStore store;
  private final long pinTtlMs;

  public ReadYourWritesPins(PinStore store, long pinTtlMs) {
    this.store = store;
    this.pinTtlMs = pinTtlMs;
  }

  /** What a read of {@code scopeId} on {@code shardId} requires now, or null. */
  public Pin requirement(String scopeId, String shardId) {
    return store.get(scopeId, shardId);
  }

  /** After a scope's write transaction committed on a shard: pin what its later reads need. */
  public void pinAfterCommit(String scopeId, String shardId, ReadYourWritesTracking.Writes writes, long commitLsn) {
    long now = System.currentTimeMillis();
    Pin pin = new Pin(writes.lsn() ? commitLsn : 0, writes.windowMillis() > 0 ? now + writes.windowMillis() : 0,
        writes.maxWaitMillis(), now + Math.max(pinTtlMs, writes.windowMillis()));
    store.pin(scopeId, shardId, pin);
  }
}
