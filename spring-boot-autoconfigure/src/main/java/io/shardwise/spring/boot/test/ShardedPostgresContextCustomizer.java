package io.shardwise.spring.boot.test;

import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import io.shardwise.testkit.junit.ShardedPostgresExtension;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Points a test application context at the shared topology of a {@link ShardedPostgres} configuration,
 * and, when the application's settings use a control database ({@code shardwise.control.url}, or
 * {@code shardwise.ids.generated = cluster}, which needs one), at a control database of the topology.
 */
final class ShardedPostgresContextCustomizer implements ContextCustomizer {
  static final String PROPERTY_SOURCE = "shardwiseTestTopology";
  static final String BEAN = "shardwisePostgresTopology";
  /** The control database of a test context: a database of shard 0's primary, shared by the run's contexts. */
  static final String CONTROL_DATABASE = "shardwise_test_control";

  private final ShardedPostgres config;

  ShardedPostgresContextCustomizer(ShardedPostgres config) {
    this.config = config;
  }

  @Override
  public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration merged) {
    PostgresTopology topology = ShardedPostgresExtension.shared(config);
    ConfigurableEnvironment environment = context.getEnvironment();
    Map<String, Object> settings = settings(topology);
    if (usesControlDatabase(environment)) {
      settings.putAll(controlSettings(topology, environment.getProperty("shardwise.ddl")));
    }
    environment.getPropertySources().addFirst(new MapPropertySource(PROPERTY_SOURCE, settings));
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
    // the shards are the test's database: @DataJpaTest has no DataSource of its own to put in their place
    settings.put("spring.test.database.replace", "none");
    return settings;
  }

  static boolean usesControlDatabase(ConfigurableEnvironment environment) {
    return environment.getProperty("shardwise.control.url") != null
        || "cluster".equalsIgnoreCase(environment.getProperty("shardwise.ids.generated", "").trim());
  }

  /**
   * A control database on shard 0's primary, created when missing and initialised from the static
   * shard map (idempotent, so every context of the run shares it), with Shardwise's own tables
   * created unless the application chose {@code shardwise.ddl} itself.
   */
  static Map<String, Object> controlSettings(PostgresTopology topology, String ddl) {
    var primary = topology.shard(0).primary();
    try (Connection c = primary.dataSource().getConnection();
        PreparedStatement exists = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
      exists.setString(1, CONTROL_DATABASE);
      try (ResultSet found = exists.executeQuery()) {
        if (!found.next()) {
          try (Statement create = c.createStatement()) {
            create.execute("CREATE DATABASE " + CONTROL_DATABASE);
          }
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("Could not create the test control database " + CONTROL_DATABASE + " on "
          + primary.jdbcUrl() + ": " + e.getMessage(), e);
    }
    Map<String, Object> settings = new LinkedHashMap<>();
    settings.put("shardwise.control.url", primary.jdbcUrl(CONTROL_DATABASE));
    settings.put("shardwise.control.initialize", "true");
    if (ddl == null) {
      settings.put("shardwise.ddl", "create");
    }
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
