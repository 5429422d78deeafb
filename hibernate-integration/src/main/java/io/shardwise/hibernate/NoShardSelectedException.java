package io.shardwise.hibernate;

/**
 * A session opened without a shard (neither a key, a shard id, nor a ShardContext around the unit
 * of work) ran a statement on a sharded entity before it used a key that binds it to a shard, or
 * could not bind ({@code [BindAfterWrite]}).
 */
public class NoShardSelectedException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  public NoShardSelectedException(String message) {
    super(message);
  }

  public NoShardSelectedException(String message, Throwable cause) {
    super(message, cause);
  }
}
