package io.shardwise.hibernate;

/**
 * A shard key value is unusable for the operation: null, owned by another shard than the session's, or changed after persist.
 */
public class ShardKeyException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  public ShardKeyException(String message) {
    super(message);
  }

  public ShardKeyException(String message, Throwable cause) {
    super(message, cause);
  }
}
