package io.shardwise.hibernate.internal;

import java.sql.Connection;

/** A pooled connection to a shard's primary, as the current shard map describes it; the caller closes it. */
@FunctionalInterface
public interface PrimaryConnections {

  /** @throws io.shardwise.hibernate.ShardUnavailableException if the shard is unknown, offline or unreachable */
  Connection primary(String shardId);
}
