package io.shardwise.hibernate.resharding;

/**
 * How a write switch went, step by step.
 *
 * @param switched whether the target owns the buckets now; false when the switch was abandoned within
 *     the pause limit and writes went on at the source
 * @param pauseMillis how long writes to the moving buckets were held, all steps (what the pause limit bounds)
 * @param drainMillis of which waiting for in-flight transactions on the moving buckets
 * @param catchUpMillis of which waiting for the target to apply the source's last change
 * @param fenceMillis of which fencing the source (the target's fence opens before the freeze)
 * @param mapMillis of which the shard map change (compare-and-set and notification) in the control database
 * @param releaseMillis of which releasing the freeze on the source
 * @param mapVersion the shard map version that gave the buckets to the target, or -1
 * @param reason why the switch was abandoned, or null
 */
public record SwitchResult(boolean switched, double pauseMillis, double drainMillis, double catchUpMillis,
    double fenceMillis, double mapMillis, double releaseMillis, long mapVersion, String reason) {

  /** A result without the fence, map and release steps (a switch abandoned before them, or refused). */
  public SwitchResult(boolean switched, double pauseMillis, double drainMillis, double catchUpMillis, long mapVersion,
      String reason) {
    this(switched, pauseMillis, drainMillis, catchUpMillis, 0, 0, 0, mapVersion, reason);
  }

  public String describe() {
    return switched
        ? String.format(java.util.Locale.ROOT, "Writes switched: shard map version %d; writes paused %.1f ms (drain %.1f"
            + " ms, catch-up %.1f ms, fences %.1f ms, map change %.1f ms, release %.1f ms)", mapVersion, pauseMillis,
            drainMillis, catchUpMillis, fenceMillis, mapMillis, releaseMillis)
        : String.format(java.util.Locale.ROOT, "Write switch abandoned after %.1f ms (drain %.1f ms, catch-up %.1f ms,"
            + " fences %.1f ms, map change %.1f ms), writes go on at the source: %s", pauseMillis, drainMillis,
            catchUpMillis, fenceMillis, mapMillis, reason);
  }

  /** {@link #describe()} for the rollback of a write switch, which hands the buckets back to the source. */
  public String describeRollback() {
    return switched
        ? String.format("Writes rolled back to the source: shard map version %d; writes paused %.1f ms (drain %.1f ms,"
            + " catch-up %.1f ms)", mapVersion, pauseMillis, drainMillis, catchUpMillis)
        : String.format("Rollback abandoned after %.1f ms, writes go on at the target: %s", pauseMillis, reason);
  }
}
