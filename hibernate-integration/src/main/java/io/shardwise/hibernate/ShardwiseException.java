package io.shardwise.hibernate;

/**
 * Base of every exception Shardwise raises. Each message names the entity, shard or setting at fault and says what to do; none is raised after SQL for the offending operation was sent.
 */
public class ShardwiseException extends jakarta.persistence.PersistenceException {
  private static final long serialVersionUID = 1L;

  public ShardwiseException(String message) {
    super(message);
  }

  public ShardwiseException(String message, Throwable cause) {
    super(message, cause);
  }
}
