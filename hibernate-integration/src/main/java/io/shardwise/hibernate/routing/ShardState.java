package io.shardwise.hibernate.routing;

/** The lifecycle state of a shard in the shard map. */
public enum ShardState {
  /** Serves reads and writes. */
  ACTIVE,
  /** Serves reads; writes are refused (e.g. during maintenance or the last step of a move). */
  READ_ONLY,
  /** Known to the map but serves nothing; sessions routed to it fail with ShardUnavailableException. */
  OFFLINE
}
