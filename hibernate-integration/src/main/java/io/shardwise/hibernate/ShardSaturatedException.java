package io.shardwise.hibernate;

/**
 * A shard is healthy but busy: its pool's connections are all in use and the limit on concurrent
 * units of work for it (the bulkhead, {@code shardwise.bulkhead.max_concurrent}) is reached, or no
 * connection came back within the checkout timeout. Distinct from {@link ShardUnavailableException}:
 * the server answers; the application asks more of it at once than its pool allows. Nothing was
 * sent to the shard. Raise {@code shardwise.pool.size} (within the server's
 * {@code max_connections}) or lower the concurrency aimed at the shard; an immediate retry makes it
 * worse.
 */
public class ShardSaturatedException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  private final String shardId;
  private final int busy;
  private final int poolSize;
  private final int waiting;

  public ShardSaturatedException(String message, String shardId, int busy, int poolSize, int waiting, Throwable cause) {
    super(message, cause);
    this.shardId = shardId;
    this.busy = busy;
    this.poolSize = poolSize;
    this.waiting = waiting;
  }

  /** The saturated shard. */
  public String shardId() {
    return shardId;
  }

  /** Connections of the shard's primary pool in use when the call was refused. */
  public int busy() {
    return busy;
  }

  /** The pool's size ({@code shardwise.pool.size}). */
  public int poolSize() {
    return poolSize;
  }

  /** Threads waiting in the pool for a connection when the call was refused. */
  public int waiting() {
    return waiting;
  }
}
