package io.shardwise.hibernate.internal;

import io.shardwise.hibernate.ShardKeyException;
import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.routing.ControlDatabase;
import io.shardwise.hibernate.routing.ControlDatabaseShardMapSource;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardMapSource;
import io.shardwise.hibernate.routing.ShardingStrategies;
import io.shardwise.hibernate.routing.ShardingStrategy;
import io.shardwise.hibernate.routing.StaticShardMapSource;
import java.sql.Connection;
import java.util.function.Consumer;

/**
 * Everything Shardwise holds for one session factory: the configuration, the shard map and the
 * strategy built on it (swapped together, atomically, when the map changes), the pools, and the
 * sharding model of the entities.
 */
public final class ShardwiseRuntime implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("io.shardwise");

  /** A map and the strategy built from it: one volatile read gives a consistent pair. */
  private record Routing(ShardMap map, ShardingStrategy strategy) {}

  private final ShardwiseConfig config;
  private final ControlDatabase control;
  private final ShardMapSource maps;
  private final ShardPools pools;
  private final ThreadLocal<String> schemaTarget = new ThreadLocal<>();
  private volatile Routing routing;
  private volatile ShardingModel model;

  private ShardwiseRuntime(ShardwiseConfig config, ControlDatabase control, ShardMapSource maps) {
    this.config = config;
    this.control = control;
    this.maps = maps;
    this.pools = new ShardPools(config);
    this.routing = route(maps.current());
    maps.addListener(this::onNewMap);
  }

  public static ShardwiseRuntime start(ShardwiseConfig config) {
    if (config.controlUrl() == null) {
      return new ShardwiseRuntime(config, null, new StaticShardMapSource(config.staticMap()));
    }
    ControlDatabase control = new ControlDatabase(config.controlUrl(), config.user(), config.password());
    if (config.controlInitialize()) {
      control.createSchema();
      control.initialize(config.staticMap());
    }
    ShardMapSource source = ControlDatabaseShardMapSource.builder(control).start();
    try {
      return new ShardwiseRuntime(config, control, source);
    } catch (RuntimeException e) {
      source.close();
      throw e;
    }
  }

  private Routing route(ShardMap map) {
    try {
      return new Routing(map, ShardingStrategies.fromProperties(config.shardwiseProperties(), map));
    } catch (IllegalArgumentException e) {
      throw new ShardingConfigurationException("Shardwise configuration of persistence unit '" + config.unitName()
          + "': " + e.getMessage(), e);
    }
  }

  private void onNewMap(ShardMap map) {
    try {
      routing = route(map);
      LOG.log(System.Logger.Level.INFO, "Persistence unit ''{0}'' routes with shard map version {1}",
          config.unitName(), map.version());
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "Persistence unit '" + config.unitName() + "' keeps shard map version "
          + routing.map().version() + ": version " + map.version() + " cannot be routed: " + e.getMessage());
    }
  }

  public ShardwiseConfig config() {
    return config;
  }

  public ShardMap shardMap() {
    return routing.map();
  }

  /** The control database, or null for a static map. */
  public ControlDatabase controlDatabase() {
    return control;
  }

  public ShardPools pools() {
    return pools;
  }

  /** The shard that owns {@code key}. */
  public String shardFor(Object key) {
    if (key == null) {
      throw new ShardKeyException("A shard key is null: every sharded entity needs its @ShardKey value set,"
          + " and routing by key needs a non-null key");
    }
    try {
      return routing.strategy().shardFor(key);
    } catch (IllegalArgumentException e) {
      throw new ShardKeyException(e.getMessage(), e);
    }
  }

  public void installModel(ShardingModel model) {
    this.model = model;
  }

  public ShardingModel model() {
    ShardingModel m = model;
    if (m == null) {
      throw new IllegalStateException("The sharding model is not installed yet: the session factory has not"
          + " finished starting (is io.shardwise.hibernate.internal.ShardwiseIntegrator on the classpath?)");
    }
    return m;
  }

  public Connection primaryConnection(String shardId) {
    return pools.primary(routing.map(), shardId);
  }

  /** Replica routing arrives with read/write splitting; until then read-only sessions use the primary. */
  public Connection readOnlyConnection(String shardId) {
    return pools.primary(routing.map(), shardId);
  }

  public Connection anyConnection() {
    String target = schemaTarget.get();
    return pools.primary(routing.map(), target != null ? target : routing.map().shards().keySet().iterator().next());
  }

  /** Runs {@code work} once per shard with Hibernate's "any connection" pointing at that shard. */
  public void onEveryShard(Consumer<String> work) {
    for (String shardId : routing.map().shards().keySet()) {
      schemaTarget.set(shardId);
      try {
        work.accept(shardId);
      } finally {
        schemaTarget.remove();
      }
    }
  }

  @Override
  public void close() {
    try {
      maps.close();
    } catch (Exception e) {
      LOG.log(System.Logger.Level.WARNING, "Closing the shard map source failed: " + e.getMessage());
    }
    pools.close();
  }
}
