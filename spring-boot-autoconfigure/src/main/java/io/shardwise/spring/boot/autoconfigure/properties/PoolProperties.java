package io.shardwise.spring.boot.autoconfigure.properties;

/** The properties {@code shardwise.pool.*}: the connection pool of every shard primary. */
public class PoolProperties {
  /** Maximum connections per shard primary. */
  private Integer size = 10;

  /**
   * Connections each shard pool keeps open while idle, at most the pool size; 0 opens them on first
   * use, so a shard that is down at start-up delays nobody.
   */
  private Integer minIdle = 0;

  /** How long a session waits for a shard connection before ShardUnavailableException, in milliseconds. */
  private Integer connectionTimeoutMs = 5000;

  public Integer getMinIdle() {
    return minIdle;
  }

  public void setMinIdle(Integer minIdle) {
    this.minIdle = minIdle;
  }

  public Integer getSize() {
    return size;
  }

  public void setSize(Integer size) {
    this.size = size;
  }

  public Integer getConnectionTimeoutMs() {
    return connectionTimeoutMs;
  }

  public void setConnectionTimeoutMs(Integer connectionTimeoutMs) {
    this.connectionTimeoutMs = connectionTimeoutMs;
  }
}
