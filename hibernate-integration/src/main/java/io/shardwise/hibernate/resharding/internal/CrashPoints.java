package io.shardwise.hibernate.resharding.internal;

import java.util.function.Consumer;

/**
 * A test hook at the points of a move where a crash of the mover matters. With the system property
 * {@value #PROPERTY} set to a point's name, the JVM halts there (no shutdown hook, no cleanup: a
 * process death); with {@value #PAUSE_PROPERTY}, it prints {@code shardwise: paused at POINT} and
 * waits there, for a test to kill it from outside ({@code kill -9}); a test in the same JVM may
 * install a hook instead. Not for production use.
 */
public final class CrashPoints {
  /** The system property naming the point at which to halt the JVM. */
  public static final String PROPERTY = "shardwise-test.reshard.crash_at";

  /** The system property naming the point at which to wait, printing {@value #PAUSED}{@code POINT}, until killed. */
  public static final String PAUSE_PROPERTY = "shardwise-test.reshard.pause_at";

  /** What a paused mover prints, followed by the point's name. */
  public static final String PAUSED = "shardwise: paused at ";

  /** Where a crash may be injected. */
  public enum Point {
    /** The subscription exists and the target is copying. */
    DURING_COPY,
    /** Writes to the moving buckets are frozen at the source and the target has caught up; the map is not flipped. */
    AFTER_FREEZE,
    /** The shard map gives the buckets to the target; the freeze is not released by the mover. */
    AFTER_FLIP,
    /** At the write switch: the reverse publication and subscription exist; the freeze has not started. */
    DURING_REVERSE_SETUP,
    /** Rollback after the write switch: writes frozen at the target, the source has caught up; the map is not flipped back. */
    AFTER_REVERSE_FREEZE,
    /** Rollback after the write switch: the map gives the buckets back to the source; reverse replication not dropped yet. */
    AFTER_REVERSE_FLIP
  }

  private static volatile Consumer<Point> hook = point -> {
    if (point.name().equals(System.getProperty(PROPERTY))) {
      System.err.println("shardwise: crash injected at " + point + " (" + PROPERTY + ")");
      System.err.flush();
      Runtime.getRuntime().halt(86);
    }
    if (point.name().equals(System.getProperty(PAUSE_PROPERTY))) {
      System.out.println(PAUSED + point);
      System.out.flush();
      while (true) {
        try {
          Thread.sleep(60_000);
        } catch (InterruptedException e) {
          // only a kill ends the wait
        }
      }
    }
  };

  private CrashPoints() {}

  static void at(Point point) {
    hook.accept(point);
  }

  /** Replaces the hook (tests in one JVM); an {@link Error} thrown by it stands for the mover's death. */
  public static void install(Consumer<Point> newHook) {
    hook = newHook;
  }
}
