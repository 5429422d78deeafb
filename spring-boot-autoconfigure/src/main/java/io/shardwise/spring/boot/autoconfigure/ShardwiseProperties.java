package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.spring.boot.autoconfigure.properties.ControlProperties;
import io.shardwise.spring.boot.autoconfigure.properties.HotspotsProperties;
import io.shardwise.spring.boot.autoconfigure.properties.IdsProperties;
import io.shardwise.spring.boot.autoconfigure.properties.MigrationsProperties;
import io.shardwise.spring.boot.autoconfigure.properties.PoolProperties;
import io.shardwise.spring.boot.autoconfigure.properties.ReadProperties;
import io.shardwise.spring.boot.autoconfigure.properties.ReplicaProperties;
import io.shardwise.spring.boot.autoconfigure.properties.RingProperties;
import io.shardwise.spring.boot.autoconfigure.properties.RywProperties;
import io.shardwise.spring.boot.autoconfigure.properties.SagaProperties;
import io.shardwise.spring.boot.autoconfigure.properties.ScatterProperties;
import io.shardwise.spring.boot.autoconfigure.properties.SchemaProperties;
import io.shardwise.spring.boot.autoconfigure.properties.ShardProperties;
import io.shardwise.spring.boot.autoconfigure.properties.SnowflakeProperties;
import io.shardwise.spring.boot.autoconfigure.properties.SqlProperties;
import io.shardwise.spring.boot.autoconfigure.properties.TxProperties;
import io.shardwise.spring.boot.autoconfigure.properties.WebProperties;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Shardwise's settings from {@code application.yml} / {@code application.properties}. The names
 * are the ones of {@link ShardwiseSettings} (a plain Hibernate application writes the same keys),
 * in Spring's kebab case; the underscore spelling of the plain settings binds as well.
 *
 * <pre>
 * shardwise.shards=s0,s1
 * shardwise.shard.s0.url=jdbc:postgresql://db0:5432/shop
 * shardwise.shard.s0.replicas=jdbc:postgresql://db0-replica:5432/shop
 * shardwise.shard.s1.url=jdbc:postgresql://db1:5432/shop
 * shardwise.user=shop
 * </pre>
 *
 * <p>Defaults are the runtime's (its settings registry; {@code PropertiesRegistryTest} keeps them
 * equal); each description says it. Nothing here is validated twice: the
 * values go to Hibernate as they are, and Shardwise checks them all at once when the
 * {@code EntityManagerFactory} starts.
 *
 * <p>This class owns the top-level keys (the shard list and the per-shard map, buckets, strategy,
 * range and directory, ddl, user, password) and {@link #toHibernateProperties()}, the one place
 * that turns the properties into Hibernate settings. Each group of keys below ({@code
 * shardwise.pool.*}, {@code shardwise.replica.*}, ...) is a class of its own in the {@code
 * properties} package, named after its prefix ({@link PoolProperties}, {@link ReplicaProperties}, ...).
 */
@ConfigurationProperties(prefix = "shardwise")
public class ShardwiseProperties {

  /**
   * Shard ids of the static shard map, in order, e.g. s0,s1,s2. The order and the weights decide
   * which buckets each shard owns: append new shards at the end.
   */
  private List<String> shards = new ArrayList<>();

  /** Per-shard settings, keyed by shard id: url, replicas, weight, state. */
  private Map<String, ShardProperties> shard = new LinkedHashMap<>();

  /** Number of logical buckets; fixed for the life of a deployment. */
  private Integer buckets = 1024;

  /** Routing strategy: bucket, ring, range or directory. */
  private String strategy = "bucket";

  @NestedConfigurationProperty
  private final RingProperties ring = new RingProperties();

  /** Range strategy: the key ranges of each shard ("lower..upper", upper exclusive), keyed by shard id. */
  private Map<String, String> range = new LinkedHashMap<>();

  /** Directory strategy: the shard of each listed key. */
  private Map<String, String> directory = new LinkedHashMap<>();

  /** Directory strategy: where unlisted keys go: none (refused), bucket or ring. */
  private String fallback;

  /**
   * Shardwise's own tables (schema shardwise): validate (default) checks them and fails with the SQL
   * to run; create creates missing ones, which needs CREATE on each database. Unset: validate.
   */
  private String ddl;

  /** User for shard connections. */
  private String user;

  /** Password for shard connections. */
  private String password;

  @NestedConfigurationProperty
  private final ControlProperties control = new ControlProperties();

  @NestedConfigurationProperty
  private final PoolProperties pool = new PoolProperties();

  @NestedConfigurationProperty
  private final SchemaProperties schema = new SchemaProperties();

  @NestedConfigurationProperty
  private final MigrationsProperties migrations = new MigrationsProperties();

  @NestedConfigurationProperty
  private final ReplicaProperties replica = new ReplicaProperties();

  @NestedConfigurationProperty
  private final ReadProperties read = new ReadProperties();

  @NestedConfigurationProperty
  private final RywProperties ryw = new RywProperties();

  @NestedConfigurationProperty
  private final TxProperties tx = new TxProperties();

  @NestedConfigurationProperty
  private final SagaProperties saga = new SagaProperties();

  @NestedConfigurationProperty
  private final ScatterProperties scatter = new ScatterProperties();

  @NestedConfigurationProperty
  private final SnowflakeProperties snowflake = new SnowflakeProperties();

  @NestedConfigurationProperty
  private final IdsProperties ids = new IdsProperties();

  @NestedConfigurationProperty
  private final HotspotsProperties hotspots = new HotspotsProperties();

  @NestedConfigurationProperty
  private final WebProperties web = new WebProperties();

  @NestedConfigurationProperty
  private final SqlProperties sql = new SqlProperties();

  public SqlProperties getSql() {
    return sql;
  }

  public IdsProperties getIds() {
    return ids;
  }

  public HotspotsProperties getHotspots() {
    return hotspots;
  }

  /**
   * The settings as Hibernate properties ({@link ShardwiseSettings} keys), without the ones left
   * unset. Web settings stay out: they are the starter's own.
   */
  public Map<String, String> toHibernateProperties() {
    Map<String, String> p = new LinkedHashMap<>();
    if (!shards.isEmpty()) {
      put(p, ShardwiseSettings.SHARDS, String.join(",", shards));
    }
    shard.forEach((id, s) -> {
      String prefix = ShardwiseSettings.SHARD_PREFIX + id + ".";
      put(p, prefix + "url", s.getUrl());
      if (!s.getReplicas().isEmpty()) {
        put(p, prefix + "replicas", String.join(",", s.getReplicas()));
      }
      put(p, prefix + "weight", s.getWeight());
      put(p, prefix + "state", s.getState());
    });
    put(p, ShardwiseSettings.BUCKETS, buckets);
    put(p, ShardwiseSettings.STRATEGY, strategy);
    put(p, "shardwise.ring.vnodes", ring.getVnodes());
    range.forEach((id, ranges) -> put(p, "shardwise.range." + id, ranges));
    directory.forEach((key, id) -> put(p, "shardwise.directory." + key, id));
    put(p, "shardwise.fallback", fallback);
    put(p, ShardwiseSettings.USER, user);
    put(p, ShardwiseSettings.PASSWORD, password);
    put(p, ShardwiseSettings.CONTROL_URL, control.getUrl());
    put(p, ShardwiseSettings.CONTROL_INITIALIZE, control.getInitialize());
    put(p, ShardwiseSettings.POOL_SIZE, pool.getSize());
    put(p, ShardwiseSettings.POOL_MIN_IDLE, pool.getMinIdle());
    put(p, ShardwiseSettings.CONNECTION_TIMEOUT, pool.getConnectionTimeoutMs());
    put(p, ShardwiseSettings.SCHEMA_ACTION, schema.getAction());
    put(p, ShardwiseSettings.MIGRATIONS_LOCATIONS, migrations.getLocations());
    put(p, ShardwiseSettings.MIGRATIONS_GATE, migrations.getGate());
    put(p, ShardwiseSettings.MIGRATIONS_TABLE, migrations.getTable());
    put(p, ShardwiseSettings.MIGRATIONS_BASELINE_VERSION, migrations.getBaselineVersion());
    put(p, ShardwiseSettings.DDL, ddl);
    put(p, ShardwiseSettings.REPLICA_BALANCE, replica.getBalance());
    put(p, ShardwiseSettings.REPLICA_MAX_LAG_MS, replica.getMaxLagMs());
    put(p, ShardwiseSettings.REPLICA_MAX_LAG_BYTES, replica.getMaxLagBytes());
    put(p, ShardwiseSettings.REPLICA_MONITOR_INTERVAL, replica.getMonitorIntervalMs());
    put(p, ShardwiseSettings.REPLICA_CONNECTION_TIMEOUT, replica.getConnectionTimeoutMs());
    put(p, ShardwiseSettings.READ_HEDGE_ENABLED, read.getHedge().getEnabled());
    put(p, ShardwiseSettings.READ_HEDGE_PERCENTILE, read.getHedge().getPercentile());
    put(p, ShardwiseSettings.READ_HEDGE_MULTIPLIER, read.getHedge().getMultiplier());
    put(p, ShardwiseSettings.READ_HEDGE_FLOOR_MS, read.getHedge().getFloorMs());
    put(p, ShardwiseSettings.READ_HEDGE_CEILING_MS, read.getHedge().getCeilingMs());
    put(p, ShardwiseSettings.RYW_SECRET, ryw.getSecret());
    put(p, ShardwiseSettings.RYW_PIN_TTL, ryw.getPinTtlMs());
    put(p, ShardwiseSettings.TX_ENABLED, tx.getEnabled());
    put(p, ShardwiseSettings.TX_RECOVERY_INTERVAL, tx.getRecoveryIntervalMs());
    put(p, ShardwiseSettings.TX_IN_DOUBT_GRACE, tx.getInDoubtGraceMs());
    put(p, ShardwiseSettings.SAGA_MAX_ATTEMPTS, saga.getMaxAttempts());
    put(p, ShardwiseSettings.SAGA_BACKOFF, saga.getBackoffMs());
    put(p, "shardwise.scatter.threads", scatter.getThreads());
    put(p, "shardwise.snowflake.worker_id", snowflake.getWorkerId());
    put(p, ShardwiseSettings.IDS_DEFAULT, ids.getDefault());
    put(p, ShardwiseSettings.IDS_GENERATED, ids.getGenerated());
    put(p, ShardwiseSettings.HOTSPOTS_ENABLED, hotspots.getEnabled());
    put(p, ShardwiseSettings.HOTSPOTS_SAMPLE, hotspots.getSample());
    put(p, ShardwiseSettings.HOTSPOTS_KEY_CHECK, hotspots.getKeyCheck());
    put(p, "shardwise.snowflake.clock", snowflake.getClock());
    put(p, "shardwise.snowflake.lease_url", snowflake.getLeaseUrl());
    put(p, "shardwise.snowflake.lease_user", snowflake.getLeaseUser());
    put(p, "shardwise.snowflake.lease_password", snowflake.getLeasePassword());
    put(p, "shardwise.snowflake.lease_ttl_seconds", snowflake.getLeaseTtlSeconds());
    return p;
  }

  private static void put(Map<String, String> p, String key, Object value) {
    if (value != null && !value.toString().isBlank()) {
      p.put(key, value.toString().trim());
    }
  }

  public List<String> getShards() {
    return shards;
  }

  public void setShards(List<String> shards) {
    this.shards = shards;
  }

  public Map<String, ShardProperties> getShard() {
    return shard;
  }

  public void setShard(Map<String, ShardProperties> shard) {
    this.shard = shard;
  }

  public Integer getBuckets() {
    return buckets;
  }

  public void setBuckets(Integer buckets) {
    this.buckets = buckets;
  }

  public String getStrategy() {
    return strategy;
  }

  public void setStrategy(String strategy) {
    this.strategy = strategy;
  }

  public RingProperties getRing() {
    return ring;
  }

  public Map<String, String> getRange() {
    return range;
  }

  public void setRange(Map<String, String> range) {
    this.range = range;
  }

  public Map<String, String> getDirectory() {
    return directory;
  }

  public void setDirectory(Map<String, String> directory) {
    this.directory = directory;
  }

  public String getDdl() {
    return ddl;
  }

  public void setDdl(String ddl) {
    this.ddl = ddl;
  }

  public String getFallback() {
    return fallback;
  }

  public void setFallback(String fallback) {
    this.fallback = fallback;
  }

  public String getUser() {
    return user;
  }

  public void setUser(String user) {
    this.user = user;
  }

  public String getPassword() {
    return password;
  }

  public void setPassword(String password) {
    this.password = password;
  }

  public ControlProperties getControl() {
    return control;
  }

  public PoolProperties getPool() {
    return pool;
  }

  public SchemaProperties getSchema() {
    return schema;
  }

  public MigrationsProperties getMigrations() {
    return migrations;
  }

  public ReadProperties getRead() {
    return read;
  }

  public ReplicaProperties getReplica() {
    return replica;
  }

  public RywProperties getRyw() {
    return ryw;
  }

  public TxProperties getTx() {
    return tx;
  }

  public SagaProperties getSaga() {
    return saga;
  }

  public ScatterProperties getScatter() {
    return scatter;
  }

  public SnowflakeProperties getSnowflake() {
    return snowflake;
  }

  public WebProperties getWeb() {
    return web;
  }
}
