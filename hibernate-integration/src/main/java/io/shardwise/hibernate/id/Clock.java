package io.shardwise.hibernate.id;

/**
 * The wall clock a {@link Snowflake} reads, in milliseconds since 1970-01-01T00:00:00Z. Production
 * code uses {@link #system()}; tests inject a clock they can stop, step forward and step back.
 *
 * <p>Implementations must be thread-safe and cheap: the generator reads the clock once per id.
 */
@FunctionalInterface
public interface Clock {

  /** Milliseconds since the Unix epoch, as {@link System#currentTimeMillis()} counts them. */
  long millis();

  /** {@link System#currentTimeMillis()}. */
  static Clock system() {
    return SystemClock.INSTANCE;
  }

  /**
   * {@link System#currentTimeMillis()} as a daemon thread last saw it, refreshed every
   * millisecond: reading it is one volatile load instead of a clock call (29 ns on the VMs the
   * benchmarks ran on). The price is staleness: usually under a millisecond, longer if that thread
   * is not scheduled. Ids stay unique and increasing whatever the staleness (the generator never
   * trusts the clock for that), but their timestamps may lag; and a worker lease must not judge its
   * deadline by a stale clock, so the generator accepts this clock only with a fixed worker id.
   */
  static Clock ticking() {
    return TickingClock.INSTANCE;
  }
}

/** One shared ticker per JVM, started on first use. */
final class TickingClock implements Clock {
  static final TickingClock INSTANCE = new TickingClock();

  private volatile long now = System.currentTimeMillis();

  private TickingClock() {
    Thread ticker = new Thread(() -> {
      while (true) {
        now = System.currentTimeMillis();
        java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
      }
    }, "shardwise-snowflake-clock");
    ticker.setDaemon(true);
    ticker.start();
  }

  @Override
  public long millis() {
    return now;
  }

  @Override
  public String toString() {
    return "TickingClock";
  }
}

/** A named singleton rather than a lambda, so that it reads well in {@code toString()} output. */
enum SystemClock implements Clock {
  INSTANCE;

  @Override
  public long millis() {
    return System.currentTimeMillis();
  }
}
