package io.shardwise.testkit.internal;

import io.shardwise.testkit.PostgresNode;
import java.util.List;

/** A started backend: its nodes by shard (primary first) and the means to stop them all. */
public interface Cluster extends AutoCloseable {

  List<List<PostgresNode>> shards();

  @Override
  void close();
}
