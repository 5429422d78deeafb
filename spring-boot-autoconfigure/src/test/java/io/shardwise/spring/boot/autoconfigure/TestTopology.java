package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import org.springframework.test.context.DynamicPropertyRegistry;

/** One topology (2 shards, 1 replica each) for the module's Spring tests, stopped when the JVM exits. */
final class TestTopology {
  private static PostgresTopology topology;

  private TestTopology() {}

  static synchronized PostgresTopology get() {
    if (topology == null) {
      topology = PostgresTopology.builder().shards(2).replicasPerShard(1).start();
      Runtime.getRuntime().addShutdownHook(new Thread(topology::close, "stop test topology"));
    }
    return topology;
  }

  static void shardwiseProperties(DynamicPropertyRegistry registry) {
    PostgresTopology pg = get();
    registry.add("shardwise.shards", () -> "s0,s1");
    for (PostgresShard shard : pg.shards()) {
      String id = "s" + shard.index();
      registry.add("shardwise.shard." + id + ".url", () -> shard.primary().jdbcUrl());
      registry.add("shardwise.shard." + id + ".replicas", () -> shard.replica(0).jdbcUrl());
    }
    registry.add("shardwise.user", () -> "postgres");
    registry.add("shardwise.schema.action", () -> "create");
  }
}
