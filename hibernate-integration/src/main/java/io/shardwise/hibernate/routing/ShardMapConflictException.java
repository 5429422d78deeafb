package io.shardwise.hibernate.routing;

/**
 * A change to the shard map was computed from a version that is no longer current: another writer
 * changed the map in between. Load the map again, recompute the change from it, and retry.
 */
public class ShardMapConflictException extends IllegalStateException {
  private static final long serialVersionUID = 1L;
  private final long expectedVersion;
  private final long actualVersion;

  public ShardMapConflictException(String message, long expectedVersion, long actualVersion) {
    super(message);
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }

  /** The version the change was computed from. */
  public long expectedVersion() {
    return expectedVersion;
  }

  /** The version the control database held when the change was refused. */
  public long actualVersion() {
    return actualVersion;
  }
}
