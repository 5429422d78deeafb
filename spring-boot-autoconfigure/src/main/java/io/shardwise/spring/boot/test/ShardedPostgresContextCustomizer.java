package io.shardwise.spring.boot.test;

import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import io.shardwise.testkit.junit.ShardedPostgresExtension;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/** Points a test application context at the shared topology of a {@link ShardedPostgres} configuration. */
final class ShardedPostgresContextCustomizer implements ContextCustomizer {
  static final String PROPERTY_SOURCE = "shardwiseTestTopology";
  static final String BEAN = "shardwisePostgresTopology";

  private final ShardedPostgres config;

  ShardedPostgresContextCustomizer(ShardedPostgres config) {
    this.config = config;
  }

  @Override
  public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration merged) {
    PostgresTopology topology = ShardedPostgresExtension.shared(config);
    context.getEnvironment().getPropertySources().addFirst(new MapPropertySource(PROPERTY_SOURCE, settings(topology)));
    context.getBeanFactory().registerSingleton(BEAN, topology);
  }

  /** shardwise.* for a topology: shard s<i> is testkit shard i's primary, with its replicas. */
  static Map<String, Object> settings(PostgresTopology topology) {
    Map<String, Object> settings = new LinkedHashMap<>();
    StringBuilder ids = new StringBuilder();
    for (PostgresShard shard : topology.shards()) {
      String id = "s" + shard.index();
      ids.append(ids.isEmpty() ? "" : ",").append(id);
      settings.put("shardwise.shard." + id + ".url", shard.primary().jdbcUrl());
      if (!shard.replicas().isEmpty()) {
        settings.put("shardwise.shard." + id + ".replicas",
            String.join(",", shard.replicas().stream().map(r -> r.jdbcUrl()).toList()));
      }
    }
    settings.put("shardwise.shards", ids.toString());
    settings.put("shardwise.user", topology.shard(0).primary().user());
    return settings;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ShardedPostgresContextCustomizer that && config.shards() == that.config.shards()
        && config.replicas() == that.config.replicas() && Arrays.equals(config.settings(), that.config.settings());
  }

  @Override
  public int hashCode() {
    return Objects.hash(config.shards(), config.replicas(), Arrays.hashCode(config.settings()));
  }
}
