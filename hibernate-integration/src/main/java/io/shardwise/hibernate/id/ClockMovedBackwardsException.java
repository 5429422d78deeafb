package io.shardwise.hibernate.id;

/**
 * The wall clock went back further than the generator tolerates ({@link
 * Snowflake.Builder#maxClockStepBack(java.time.Duration)}). Issuing an id now could repeat one
 * already issued, so the generator refuses until the clock has caught up with the last id. Fix
 * the host's time synchronization (NTP should slew, not step), or raise the tolerance if brief
 * steps back are expected: during a tolerated step back the generator waits instead of failing.
 */
public final class ClockMovedBackwardsException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final long behindMillis;

  ClockMovedBackwardsException(String message, long behindMillis) {
    super(message);
    this.behindMillis = behindMillis;
  }

  /** How many milliseconds the clock was behind the last issued id when the generator gave up. */
  public long behindMillis() {
    return behindMillis;
  }
}
