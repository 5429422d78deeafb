package io.shardwise.hibernate;

/**
 * A shard cannot serve: its primary does not answer, or the shard map marks it offline. The message names the shard, the server and what the pool saw. Other shards keep serving.
 */
public class ShardUnavailableException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  public ShardUnavailableException(String message) {
    super(message);
  }

  public ShardUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
