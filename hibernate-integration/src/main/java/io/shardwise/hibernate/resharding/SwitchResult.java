package io.shardwise.hibernate.resharding;

/**
 * How a write switch went.
 *
 * @param switched whether the target owns the buckets now; false when the switch was abandoned within
 *     the pause limit and writes went on at the source
 * @param pauseMillis how long writes to the moving buckets were held (drain, catch-up, map flip)
 * @param drainMillis of which waiting for in-flight transactions on the moving buckets
 * @param catchUpMillis of which waiting for the target to apply the source's last change
 * @param mapVersion the shard map version that gave the buckets to the target, or -1
 * @param reason why the switch was abandoned, or null
 */
public record SwitchResult(boolean switched, double pauseMillis, double drainMillis, double catchUpMillis,
    long mapVersion, String reason) {

  public String describe() {
    return switched
        ? String.format("Writes switched: shard map version %d; writes paused %.1f ms (drain %.1f ms, catch-up %.1f ms)",
            mapVersion, pauseMillis, drainMillis, catchUpMillis)
        : String.format("Write switch abandoned after %.1f ms, writes go on at the source: %s", pauseMillis, reason);
  }

  /** {@link #describe()} for the rollback of a write switch, which hands the buckets back to the source. */
  public String describeRollback() {
    return switched
        ? String.format("Writes rolled back to the source: shard map version %d; writes paused %.1f ms (drain %.1f ms,"
            + " catch-up %.1f ms)", mapVersion, pauseMillis, drainMillis, catchUpMillis)
        : String.format("Rollback abandoned after %.1f ms, writes go on at the target: %s", pauseMillis, reason);
  }
}
