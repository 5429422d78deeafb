package io.shardwise.hibernate;

import java.sql.SQLException;

/**
 * A shard cannot serve: its primary does not answer, the shard map marks it offline, or the
 * connection to one of its servers was lost while a statement or a commit ran. The message names
 * the shard, the server and what the pool or the driver saw; when a connection was lost, the cause
 * is the driver's exception with its SQLSTATE. Other shards keep serving.
 */
public class ShardUnavailableException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  private final String shardId;
  private final String node;
  private final BreakerState breakerState;

  public ShardUnavailableException(String message) {
    super(message);
    this.shardId = null;
    this.node = null;
    this.breakerState = null;
  }

  public ShardUnavailableException(String message, Throwable cause) {
    super(message, cause);
    this.shardId = null;
    this.node = null;
    this.breakerState = null;
  }

  /**
   * @param node the server that failed, as {@code primary host:port} or {@code replica host:port}
   */
  public ShardUnavailableException(String message, String shardId, String node, Throwable cause) {
    this(message, shardId, node, null, cause);
  }

  /**
   * @param breakerState the state of the node's circuit breaker when the call was refused by it
   *     without touching the server; null when the server itself was tried
   */
  public ShardUnavailableException(String message, String shardId, String node, BreakerState breakerState,
      Throwable cause) {
    super(message, cause);
    this.shardId = shardId;
    this.node = node;
    this.breakerState = breakerState;
  }

  /**
   * The state of the node's circuit breaker ({@code OPEN} or {@code HALF_OPEN}) when the breaker
   * refused the call at once, without touching the server; null when the server itself failed.
   */
  public BreakerState breakerState() {
    return breakerState;
  }

  /** The shard that failed, when the failure concerns one shard's connection; else null. */
  public String shardId() {
    return shardId;
  }

  /** The server that failed ({@code primary host:port}, {@code replica host:port}), when known; else null. */
  public String node() {
    return node;
  }

  /** The SQLSTATE the driver reported for the failure, when a driver exception caused it; else null. */
  public String sqlState() {
    for (Throwable t = getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        return sql.getSQLState();
      }
    }
    return null;
  }
}
