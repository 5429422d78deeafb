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
}

/** A named singleton rather than a lambda, so that it reads well in {@code toString()} output. */
enum SystemClock implements Clock {
  INSTANCE;

  @Override
  public long millis() {
    return System.currentTimeMillis();
  }
}
