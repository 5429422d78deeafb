package io.shardwise.hibernate.routing;

import java.util.Objects;
import java.util.function.Consumer;

/**
 * A shard map fixed at start-up, for deployments whose shards never change while the application
 * runs (and for tests). Listeners are accepted but never called, because nothing changes.
 */
public final class StaticShardMapSource implements ShardMapSource {
  private final ShardMap map;

  public StaticShardMapSource(ShardMap map) {
    this.map = Objects.requireNonNull(map, "a StaticShardMapSource needs a shard map");
  }

  @Override
  public ShardMap current() {
    return map;
  }

  @Override
  public void addListener(Consumer<ShardMap> listener) {
    Objects.requireNonNull(listener, "listener");
  }

  @Override
  public void close() {
    // holds no resources
  }

  @Override
  public String toString() {
    return "StaticShardMapSource{" + map + "}";
  }
}
