package io.shardwise.hibernate.readwrite.internal;

import io.shardwise.annotations.ReadYourWrites;
import io.shardwise.hibernate.readwrite.Pin;

/**
 * Thread-bound state between Shardwise's session API and the connection provider: what a read on
 * this thread requires of its shard (set around read-only work of a consistency scope), and which
 * {@code @ReadYourWrites} entities a write transaction touched (set around write work of a scope).
 */
public final class ReadYourWritesTracking {
  private static final ThreadLocal<Pin> READ_REQUIREMENT = new ThreadLocal<>();
  private static final ThreadLocal<Writes> WRITES = new ThreadLocal<>();

  private ReadYourWritesTracking() {}

  /** The strongest {@code @ReadYourWrites} demand among the entities a transaction wrote. */
  public static final class Writes {
    private boolean lsn;
    private long windowMillis;
    private long maxWaitMillis;

    void add(ReadYourWrites ryw) {
      if (ryw.mode() == ReadYourWrites.Mode.LSN) {
        lsn = true;
        maxWaitMillis = Math.max(maxWaitMillis, ryw.maxWaitMillis());
      } else {
        windowMillis = Math.max(windowMillis, ryw.windowMillis());
      }
    }

    public boolean any() {
      return lsn || windowMillis > 0;
    }

    public boolean lsn() {
      return lsn;
    }

    public long windowMillis() {
      return windowMillis;
    }

    public long maxWaitMillis() {
      return maxWaitMillis;
    }
  }

  public static Writes startTrackingWrites() {
    Writes w = new Writes();
    WRITES.set(w);
    return w;
  }

  public static void stopTrackingWrites() {
    WRITES.remove();
  }

  public static void wrote(ReadYourWrites ryw) {
    Writes w = WRITES.get();
    if (w != null && ryw != null) {
      w.add(ryw);
    }
  }

  public static void requireForReads(Pin pin) {
    if (pin == null) {
      READ_REQUIREMENT.remove();
    } else {
      READ_REQUIREMENT.set(pin);
    }
  }

  static Pin readRequirement() {
    return READ_REQUIREMENT.get();
  }
}
