package io.shardwise.hibernate.transaction.internal;

import io.shardwise.hibernate.routing.ShardMap;
import java.sql.Connection;

/** What cross-shard transactions need of the rest of Shardwise: routing, the shards' primaries, the unit's name. */
public interface ShardAccess {

  /** The shard that owns {@code key}. */
  String shardFor(Object key);

  /** The shard map routing uses now. */
  ShardMap shardMap();

  /** Loads a shard map at least as new as {@code atLeastVersion} (-1: the newest) and routes with it from now on. */
  ShardMap refreshMap(long atLeastVersion);

  /** A pooled connection to a shard's primary; the caller closes it. */
  Connection primaryConnection(String shardId);

  /**
   * Drops the idle pooled connections to a shard's primary: one of them was found ended by its
   * server (a restart, an administrator), and the others, opened before the same event, are likely dead too.
   */
  void dropIdlePrimaryConnections(String shardId);

  /** The persistence unit, for messages. */
  String unitName();
}
