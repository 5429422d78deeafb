package io.shardwise.hibernate.resharding.internal;

import java.sql.SQLException;

/** Records an object a move is about to create on one shard, before it creates it. */
@FunctionalInterface
interface ObjectLog {
  void record(String kind, String name, String detail) throws SQLException;
}
