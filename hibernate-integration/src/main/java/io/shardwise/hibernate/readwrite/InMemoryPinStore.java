package io.shardwise.hibernate.readwrite;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * Pins in this JVM's memory; expired pins are dropped as they are met and by a sweep on write.
 *
 * <p>A scope's pins are written only inside an atomic {@code compute} on that scope's entry, and
 * the sweep drops expired pins and an emptied scope inside one atomic {@code computeIfPresent}:
 * a pin written while the sweep empties its scope waits for the sweep and lands in a fresh map,
 * never in a map the sweep is about to drop. Reads need no lock: each scope's map is concurrent.
 */
public final class InMemoryPinStore implements PinStore {
  private static final int SWEEP_EVERY = 1024;

  /** Told about each scope the sweep looked at, inside its atomic step; for tests that force an interleaving. */
  @FunctionalInterface
  interface SweepHook {
    void swept(String scopeId, boolean empty);
  }

  private final ConcurrentHashMap<String, ConcurrentHashMap<String, Pin>> scopes = new ConcurrentHashMap<>();
  private final AtomicInteger writes = new AtomicInteger();
  private final LongSupplier clock;
  private final SweepHook sweepHook;

  public InMemoryPinStore() {
    this(System::currentTimeMillis, (scopeId, empty) -> { });
  }

  InMemoryPinStore(LongSupplier clock, SweepHook sweepHook) {
    this.clock = clock;
    this.sweepHook = sweepHook;
  }

  @Override
  public Pin get(String scopeId, String shardId) {
    Map<String, Pin> pins = scopes.get(scopeId);
    Pin pin = pins == null ? null : pins.get(shardId);
    return pin == null || pin.expired(clock.getAsLong()) ? null : pin;
  }

  @Override
  public void pin(String scopeId, String shardId, Pin pin) {
    scopes.compute(scopeId, (id, pins) -> {
      ConcurrentHashMap<String, Pin> live = pins != null ? pins : new ConcurrentHashMap<>();
      live.merge(shardId, pin, Pin::merge);
      return live;
    });
    if (writes.incrementAndGet() % SWEEP_EVERY == 0) {
      sweep();
    }
  }

  @Override
  public Map<String, Pin> pins(String scopeId) {
    Map<String, Pin> live = new HashMap<>();
    Map<String, Pin> pins = scopes.get(scopeId);
    long now = clock.getAsLong();
    if (pins != null) {
      pins.forEach((shard, pin) -> {
        if (!pin.expired(now)) {
          live.put(shard, pin);
        }
      });
    }
    return live;
  }

  /**
   * Live pins on {@code shardId}, over every scope: a walk of the scopes, for a metrics gauge read
   * on scrape, never on a request path.
   */
  public int livePinsOn(String shardId) {
    long now = clock.getAsLong();
    int live = 0;
    for (Map<String, Pin> pins : scopes.values()) {
      Pin pin = pins.get(shardId);
      live += pin != null && !pin.expired(now) ? 1 : 0;
    }
    return live;
  }

  void sweep() {
    long now = clock.getAsLong();
    for (String scopeId : scopes.keySet()) {
      scopes.computeIfPresent(scopeId, (id, pins) -> {
        pins.values().removeIf(p -> p.expired(now));
        sweepHook.swept(id, pins.isEmpty());
        return pins.isEmpty() ? null : pins;
      });
    }
  }
}
