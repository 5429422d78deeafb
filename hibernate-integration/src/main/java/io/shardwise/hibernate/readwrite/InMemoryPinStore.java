package io.shardwise.hibernate.readwrite;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Pins in this JVM's memory; expired pins are dropped as they are met and by a sweep on write. */
public final class InMemoryPinStore implements PinStore {
  private static final int SWEEP_EVERY = 1024;

  private final ConcurrentHashMap<String, ConcurrentHashMap<String, Pin>> scopes = new ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();

  @Override
  public Pin get(String scopeId, String shardId) {
    Map<String, Pin> pins = scopes.get(scopeId);
    Pin pin = pins == null ? null : pins.get(shardId);
    return pin == null || pin.expired(System.currentTimeMillis()) ? null : pin;
  }

  @Override
  public void pin(String scopeId, String shardId, Pin pin) {
    scopes.computeIfAbsent(scopeId, k -> new ConcurrentHashMap<>()).merge(shardId, pin, Pin::merge);
    if (writes.incrementAndGet() % SWEEP_EVERY == 0) {
      sweep();
    }
  }

  @Override
  public Map<String, Pin> pins(String scopeId) {
    Map<String, Pin> live = new HashMap<>();
    Map<String, Pin> pins = scopes.get(scopeId);
    long now = System.currentTimeMillis();
    if (pins != null) {
      pins.forEach((shard, pin) -> {
        if (!pin.expired(now)) {
          live.put(shard, pin);
        }
      });
    }
    return live;
  }

  private void sweep() {
    long now = System.currentTimeMillis();
    scopes.values().forEach(pins -> pins.values().removeIf(p -> p.expired(now)));
    scopes.values().removeIf(Map::isEmpty);
  }
}
