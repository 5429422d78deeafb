package io.shardwise.hibernate;

/**
 * A session was opened without a shard: neither a key, a shard id, nor a ShardContext around the unit of work.
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
