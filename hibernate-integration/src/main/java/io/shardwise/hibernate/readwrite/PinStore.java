package io.shardwise.hibernate.readwrite;

import java.util.Map;

/**
 * Where read-your-writes pins live, per consistency scope and shard. The default keeps them in
 * memory ({@link InMemoryPinStore}); a consistency token carries them across application
 * instances without any shared store. Implementations must be thread-safe, and {@link #pin} must
 * merge (never weaken) an existing pin.
 */
public interface PinStore {

  /** The scope's live pin on the shard, or null. */
  Pin get(String scopeId, String shardId);

  /** Adds or strengthens the scope's pin on the shard. */
  void pin(String scopeId, String shardId, Pin pin);

  /** Every live pin of the scope, by shard. */
  Map<String, Pin> pins(String scopeId);
}
