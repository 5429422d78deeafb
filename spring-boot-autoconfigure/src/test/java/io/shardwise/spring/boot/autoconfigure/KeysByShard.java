package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardState;
import io.shardwise.hibernate.routing.ShardingStrategies;
import io.shardwise.hibernate.routing.ShardingStrategy;
import java.util.List;
import java.util.Map;

/** Keys that the tests' shard map (s0, s1, default bucket strategy) puts on a given shard. */
final class KeysByShard {
  private static final ShardingStrategy STRATEGY = ShardingStrategies.fromProperties(Map.of(), ShardMap.evenlyAssigned(1,
      List.of(new ShardDescriptor("s0", "jdbc:postgresql://unused/0", List.of(), 1, ShardState.ACTIVE),
          new ShardDescriptor("s1", "jdbc:postgresql://unused/1", List.of(), 1, ShardState.ACTIVE)),
      ShardMap.DEFAULT_BUCKETS));

  private KeysByShard() {}

  static long first(String shardId) {
    for (long key = 1; key < 10_000; key++) {
      if (STRATEGY.shardFor(key).equals(shardId)) {
        return key;
      }
    }
    throw new IllegalStateException("no key of " + shardId + " below 10000");
  }
}
