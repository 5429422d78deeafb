package io.shardwise.hibernate.id;

import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when the test says so, and counts how often it was read. */
final class ManualClock implements Clock {
  private final AtomicLong millis;
  private final AtomicLong reads = new AtomicLong();

  ManualClock(long startMillis) {
    this.millis = new AtomicLong(startMillis);
  }

  @Override
  public long millis() {
    reads.incrementAndGet();
    return millis.get();
  }

  void set(long value) {
    millis.set(value);
  }

  void advance(long delta) {
    millis.addAndGet(delta);
  }

  long reads() {
    return reads.get();
  }
}
