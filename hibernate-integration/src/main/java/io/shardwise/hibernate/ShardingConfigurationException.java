package io.shardwise.hibernate;

/**
 * The sharding model or configuration is invalid; raised when the session factory starts, listing every problem found, each with its fix.
 */
public class ShardingConfigurationException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  public ShardingConfigurationException(String message) {
    super(message);
  }

  public ShardingConfigurationException(String message, Throwable cause) {
    super(message, cause);
  }
}
