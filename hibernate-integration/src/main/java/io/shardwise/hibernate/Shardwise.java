package io.shardwise.hibernate;

import io.shardwise.hibernate.spi.ShardContextResolver;
import io.shardwise.hibernate.spi.ShardwiseConnectionProvider;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.metrics.internal.Metrics;
import io.shardwise.hibernate.metrics.internal.Observations;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;

/**
 * Entry point: a fluent builder for a sharded Hibernate {@link SessionFactory}. Everything it sets
 * is an ordinary property (see {@link ShardwiseSettings}), so persistence.xml works just as well.
 *
 * <pre>{@code
 * SessionFactory sf = Shardwise.configure()
 *     .shard("s0", "jdbc:postgresql://db0:5432/shop")
 *     .shard("s1", "jdbc:postgresql://db1:5432/shop")
 *     .credentials("shop", secret)
 *     .schema("create")
 *     .entities(Merchant.class, PurchaseOrder.class, OrderItem.class, Country.class)
 *     .buildSessionFactory();
 * ShardedSessions shards = ShardedSessions.of(sf);
 * }</pre>
 */
public final class Shardwise {
  private Shardwise() {}

  /**
   * Online resharding without a session factory (the command line's way): {@code settings} are
   * Shardwise properties with at least {@link ShardwiseSettings#CONTROL_URL} and the credentials
   * ({@link ShardwiseSettings#USER}, {@link ShardwiseSettings#PASSWORD}), checked like a persistence
   * unit's; requests must name their tables.
   */
  public static io.shardwise.hibernate.resharding.Resharding resharding(java.util.Map<String, ?> settings) {
    java.util.Map<String, Object> copy = new java.util.HashMap<>(settings);
    copy.putIfAbsent("hibernate.persistenceUnitName", "shardwise-reshard");
    return new io.shardwise.hibernate.resharding.internal.Mover(
        io.shardwise.hibernate.internal.ShardwiseConfig.from(copy), java.util.List::of);
  }

  /**
   * Schema migrations without a session factory (the command line's way): {@code settings} are
   * Shardwise properties naming the shards ({@link ShardwiseSettings#SHARDS} and their URLs, or
   * {@link ShardwiseSettings#CONTROL_URL}), the credentials and
   * {@link ShardwiseSettings#MIGRATIONS_LOCATIONS}, checked like a persistence unit's. No version
   * gate applies: this is how shards at different versions are brought level.
   */
  public static io.shardwise.hibernate.migrations.Migrations migrations(java.util.Map<String, ?> settings) {
    java.util.Map<String, Object> copy = new java.util.HashMap<>(settings);
    copy.putIfAbsent("hibernate.persistenceUnitName", "shardwise-migrate");
    return io.shardwise.hibernate.migrations.internal.ShardMigrations.standalone(
        io.shardwise.hibernate.internal.ShardwiseConfig.from(copy));
  }

  public static Builder configure() {
    return new Builder();
  }

  /**
   * Collects settings and entity classes; {@link #buildSessionFactory()} validates them all at once.
   * A setting given twice must be given the same value: a second, different value is a
   * contradiction and is refused at once ({@link IllegalStateException}) rather than silently
   * overwriting the first.
   */
  public static final class Builder {
    private final Map<String, String> properties = new LinkedHashMap<>();
    private final List<String> shardIds = new ArrayList<>();
    private final List<Class<?>> entities = new ArrayList<>();
    private Object meterRegistry;
    private Object observationRegistry;

    private Builder() {
      properties.put("hibernate.multi_tenant_connection_provider", ShardwiseConnectionProvider.class.getName());
      properties.put("hibernate.tenant_identifier_resolver", ShardContextResolver.class.getName());
    }

    /** A shard: its id (the Hibernate tenant identifier) and its primary's JDBC URL. */
    public Builder shard(String id, String primaryUrl) {
      return shard(id, primaryUrl, 1);
    }

    /** A shard with a weight: a weight-2 shard owns twice the buckets of a weight-1 shard. */
    public Builder shard(String id, String primaryUrl, int weight) {
      if (shardIds.contains(id)) {
        throw new IllegalArgumentException("Shard '" + id + "' is configured twice");
      }
      String listed = properties.get(ShardwiseSettings.SHARDS);
      if (listed != null && !listed.equals(String.join(",", shardIds))) {
        throw new IllegalStateException(ShardwiseSettings.SHARDS + " was already set to " + listed
            + " with property(...); list the shards either with shard(...) or with that property, not both");
      }
      checkUnsetOrEqual(ShardwiseSettings.SHARD_PREFIX + id + ".url", primaryUrl);
      checkUnsetOrEqual(ShardwiseSettings.SHARD_PREFIX + id + ".weight", Integer.toString(weight));
      set(ShardwiseSettings.SHARD_PREFIX + id + ".url", primaryUrl);
      set(ShardwiseSettings.SHARD_PREFIX + id + ".weight", Integer.toString(weight));
      shardIds.add(id);
      properties.put(ShardwiseSettings.SHARDS, String.join(",", shardIds));
      return this;
    }

    /** A streaming replica of a shard configured above; read-only sessions may be served by it. */
    public Builder replica(String shardId, String replicaUrl) {
      if (!shardIds.contains(shardId)) {
        throw new IllegalArgumentException("replica(" + shardId + ", ...): configure shard '" + shardId + "' first");
      }
      String key = ShardwiseSettings.SHARD_PREFIX + shardId + ".replicas";
      String existing = properties.get(key);
      if (existing != null && List.of(existing.split(",")).contains(replicaUrl)) {
        throw new IllegalArgumentException("replica(" + shardId + ", " + JdbcUrls.redact(replicaUrl)
            + ") is configured twice");
      }
      properties.put(key, existing == null ? replicaUrl : existing + "," + replicaUrl);
      return this;
    }

    /** Read the shard map from a control database instead of (or, with initialize, seeded from) the shards above. */
    public Builder controlDatabase(String jdbcUrl, boolean initializeFromShards) {
      checkUnsetOrEqual(ShardwiseSettings.CONTROL_URL, jdbcUrl);
      checkUnsetOrEqual(ShardwiseSettings.CONTROL_INITIALIZE, Boolean.toString(initializeFromShards));
      set(ShardwiseSettings.CONTROL_URL, jdbcUrl);
      set(ShardwiseSettings.CONTROL_INITIALIZE, Boolean.toString(initializeFromShards));
      return this;
    }

    /** The user and password of shard connections; a null password means none (trust, peer, .pgpass). */
    public Builder credentials(String user, String password) {
      checkUnsetOrEqual(ShardwiseSettings.USER, user);
      checkUnsetOrEqual(ShardwiseSettings.PASSWORD, password);
      set(ShardwiseSettings.USER, user);
      set(ShardwiseSettings.PASSWORD, password);
      return this;
    }

    /** none, create, update or validate — on every shard at startup. */
    public Builder schema(String action) {
      return property(ShardwiseSettings.SCHEMA_ACTION, action);
    }

    /**
     * {@link ShardwiseSettings#DDL}: {@code "create"} lets Shardwise create its own tables (schema
     * {@code shardwise}) when missing, which needs {@code CREATE} on each database; {@code "validate"}
     * (the default) checks them and fails with the SQL to run ({@link ShardwiseDdl}).
     */
    public Builder ddl(String mode) {
      return property(ShardwiseSettings.DDL, mode);
    }

    /**
     * Publishes Shardwise's meters (docs/operations.md) to a Micrometer {@code MeterRegistry}: sessions
     * per shard, HikariCP's pool meters tagged with shard and role, replica lag, scatter-gather and
     * cross-shard transaction outcomes. Typed {@code Object} so that this builder loads without
     * Micrometer on the class path; anything but a {@code MeterRegistry} is refused.
     */
    public Builder meterRegistry(Object registry) {
      meterRegistry = once("meterRegistry", ShardwiseSettings.METER_REGISTRY, meterRegistry, registry,
          registry != null && Metrics.isMeterRegistry(registry), Metrics.METER_REGISTRY_TYPE,
          "CompositeMeterRegistry");
      return this;
    }

    /**
     * Reports Shardwise's observations (docs/operations.md, "Traces") to a Micrometer
     * {@code ObservationRegistry}: each unit of work on a shard, each scatter-gather query with a
     * child per shard, each cross-shard transaction with a child per participant, carrying
     * OpenTelemetry's database attributes and the shard. Typed {@code Object} like
     * {@link #meterRegistry}; anything but an {@code ObservationRegistry} is refused.
     */
    public Builder observationRegistry(Object registry) {
      observationRegistry = once("observationRegistry", ShardwiseSettings.OBSERVATION_REGISTRY, observationRegistry,
          registry, registry != null && Observations.isObservationRegistry(registry),
          Observations.OBSERVATION_REGISTRY_TYPE, "ObservationRegistry with several handlers");
      return this;
    }

    /** {@code given}, refused when it is not of {@code type} or when another registry was set before. */
    private static Object once(String method, String key, Object current, Object given, boolean ofType, String type,
        String toReachSeveral) {
      if (!ofType) {
        throw new IllegalArgumentException(method + "(...) takes a " + type + "; was "
            + (given == null ? "null" : "a " + given.getClass().getName()));
      }
      if (current != null && current != given) {
        throw new IllegalStateException(key + " was already set to another registry (" + current.getClass().getName()
            + "); give " + method + "(...) once. To publish to several, pass a Micrometer " + toReachSeveral + ".");
      }
      return given;
    }

    public Builder entities(Class<?>... types) {
      entities.addAll(List.of(types));
      return this;
    }

    /** Any Hibernate, JPA or Shardwise property. */
    public Builder property(String key, String value) {
      set(key, value);
      return this;
    }

    /**
     * Sets {@code key}, refusing a value that contradicts one set before (the same value again is
     * fine). A null value sets nothing, and contradicts a value set before.
     */
    private void set(String key, String value) {
      checkUnsetOrEqual(key, value);
      if (value != null) {
        properties.put(key, value);
      }
    }

    private void checkUnsetOrEqual(String key, String value) {
      if (key == null) {
        throw new IllegalArgumentException("A property needs a name; was null");
      }
      String previous = properties.get(key);
      if (previous != null && !previous.equals(value)) {
        throw new IllegalStateException(key + " was already set to " + shown(key, previous)
            + "; refusing to change it to " + shown(key, value) + ". Set each property once.");
      }
    }

    /** How a value may appear in a message: secrets hidden, URLs with their credentials masked. */
    private static String shown(String key, String value) {
      if (value == null) {
        return "nothing";
      }
      String name = key.toLowerCase(java.util.Locale.ROOT);
      if (name.contains("password") || name.contains("secret")) {
        return "(hidden)";
      }
      return JdbcUrls.redact(value);
    }

    public SessionFactory buildSessionFactory() {
      Configuration cfg = new Configuration();
      properties.forEach(cfg::setProperty);
      if (meterRegistry != null) {
        cfg.getProperties().put(ShardwiseSettings.METER_REGISTRY, meterRegistry);
      }
      if (observationRegistry != null) {
        cfg.getProperties().put(ShardwiseSettings.OBSERVATION_REGISTRY, observationRegistry);
      }
      entities.forEach(cfg::addAnnotatedClass);
      return cfg.buildSessionFactory();
    }
  }
}
