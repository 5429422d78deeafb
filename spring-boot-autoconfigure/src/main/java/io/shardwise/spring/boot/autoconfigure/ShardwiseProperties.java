package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.hibernate.ShardwiseSettings;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

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
 */
@ConfigurationProperties(prefix = "shardwise")
public class ShardwiseProperties {

  /**
   * Shard ids of the static shard map, in order, e.g. s0,s1,s2. The order and the weights decide
   * which buckets each shard owns: append new shards at the end.
   */
  private List<String> shards = new ArrayList<>();

  /** Per-shard settings, keyed by shard id: url, replicas, weight, state. */
  private Map<String, Shard> shard = new LinkedHashMap<>();

  /** Number of logical buckets; fixed for the life of a deployment. */
  private Integer buckets = 1024;

  /** Routing strategy: bucket, ring, range or directory. */
  private String strategy = "bucket";

  private final Ring ring = new Ring();

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

  private final Control control = new Control();

  private final Pool pool = new Pool();

  private final Schema schema = new Schema();

  private final Migrations migrations = new Migrations();

  private final Replica replica = new Replica();

  private final Read read = new Read();

  private final Ryw ryw = new Ryw();

  private final Tx tx = new Tx();

  private final Saga saga = new Saga();

  private final Scatter scatter = new Scatter();

  private final Snowflake snowflake = new Snowflake();

  private final Ids ids = new Ids();

  private final Hotspots hotspots = new Hotspots();

  private final Web web = new Web();

  private final Sql sql = new Sql();

  public Sql getSql() {
    return sql;
  }

  public Ids getIds() {
    return ids;
  }

  public Hotspots getHotspots() {
    return hotspots;
  }

  /** Scripts run on every shard at startup. */
  public static class Sql {
    private final Init init = new Init();

    public Init getInit() {
      return init;
    }

    /** Seed scripts for development databases, routed as spring.sql.init data scripts are. */
    public static class Init {
      /**
       * Seed scripts (e.g. classpath:reference-data.sql) run at startup after the schema action: rows of sharded tables on their key's shard, reference tables on every shard, nothing when a statement cannot be routed. For development and tests.
       */
      private List<String> locations = new ArrayList<>();

      public List<String> getLocations() {
        return locations;
      }

      public void setLocations(List<String> locations) {
        this.locations = locations;
      }
    }
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
      put(p, prefix + "url", s.url);
      if (!s.replicas.isEmpty()) {
        put(p, prefix + "replicas", String.join(",", s.replicas));
      }
      put(p, prefix + "weight", s.weight);
      put(p, prefix + "state", s.state);
    });
    put(p, ShardwiseSettings.BUCKETS, buckets);
    put(p, ShardwiseSettings.STRATEGY, strategy);
    put(p, "shardwise.ring.vnodes", ring.vnodes);
    range.forEach((id, ranges) -> put(p, "shardwise.range." + id, ranges));
    directory.forEach((key, id) -> put(p, "shardwise.directory." + key, id));
    put(p, "shardwise.fallback", fallback);
    put(p, ShardwiseSettings.USER, user);
    put(p, ShardwiseSettings.PASSWORD, password);
    put(p, ShardwiseSettings.CONTROL_URL, control.url);
    put(p, ShardwiseSettings.CONTROL_INITIALIZE, control.initialize);
    put(p, ShardwiseSettings.POOL_SIZE, pool.size);
    put(p, ShardwiseSettings.POOL_MIN_IDLE, pool.minIdle);
    put(p, ShardwiseSettings.CONNECTION_TIMEOUT, pool.connectionTimeoutMs);
    put(p, ShardwiseSettings.SCHEMA_ACTION, schema.action);
    put(p, ShardwiseSettings.MIGRATIONS_LOCATIONS, migrations.locations);
    put(p, ShardwiseSettings.MIGRATIONS_GATE, migrations.gate);
    put(p, ShardwiseSettings.MIGRATIONS_TABLE, migrations.table);
    put(p, ShardwiseSettings.MIGRATIONS_BASELINE_VERSION, migrations.baselineVersion);
    put(p, ShardwiseSettings.DDL, ddl);
    put(p, ShardwiseSettings.REPLICA_BALANCE, replica.balance);
    put(p, ShardwiseSettings.REPLICA_MAX_LAG_MS, replica.maxLagMs);
    put(p, ShardwiseSettings.REPLICA_MAX_LAG_BYTES, replica.maxLagBytes);
    put(p, ShardwiseSettings.REPLICA_MONITOR_INTERVAL, replica.monitorIntervalMs);
    put(p, ShardwiseSettings.REPLICA_CONNECTION_TIMEOUT, replica.connectionTimeoutMs);
    put(p, ShardwiseSettings.READ_HEDGE_ENABLED, read.hedge.enabled);
    put(p, ShardwiseSettings.READ_HEDGE_PERCENTILE, read.hedge.percentile);
    put(p, ShardwiseSettings.READ_HEDGE_MULTIPLIER, read.hedge.multiplier);
    put(p, ShardwiseSettings.READ_HEDGE_FLOOR_MS, read.hedge.floorMs);
    put(p, ShardwiseSettings.READ_HEDGE_CEILING_MS, read.hedge.ceilingMs);
    put(p, ShardwiseSettings.RYW_SECRET, ryw.secret);
    put(p, ShardwiseSettings.RYW_PIN_TTL, ryw.pinTtlMs);
    put(p, ShardwiseSettings.TX_ENABLED, tx.enabled);
    put(p, ShardwiseSettings.TX_RECOVERY_INTERVAL, tx.recoveryIntervalMs);
    put(p, ShardwiseSettings.TX_IN_DOUBT_GRACE, tx.inDoubtGraceMs);
    put(p, ShardwiseSettings.SAGA_MAX_ATTEMPTS, saga.maxAttempts);
    put(p, ShardwiseSettings.SAGA_BACKOFF, saga.backoffMs);
    put(p, "shardwise.scatter.threads", scatter.threads);
    put(p, "shardwise.snowflake.worker_id", snowflake.workerId);
    put(p, ShardwiseSettings.IDS_DEFAULT, ids.defaultStrategy);
    put(p, ShardwiseSettings.IDS_GENERATED, ids.generated);
    put(p, ShardwiseSettings.HOTSPOTS_ENABLED, hotspots.enabled);
    put(p, ShardwiseSettings.HOTSPOTS_SAMPLE, hotspots.sample);
    put(p, ShardwiseSettings.HOTSPOTS_KEY_CHECK, hotspots.keyCheck);
    put(p, "shardwise.snowflake.clock", snowflake.clock);
    put(p, "shardwise.snowflake.lease_url", snowflake.leaseUrl);
    put(p, "shardwise.snowflake.lease_user", snowflake.leaseUser);
    put(p, "shardwise.snowflake.lease_password", snowflake.leasePassword);
    put(p, "shardwise.snowflake.lease_ttl_seconds", snowflake.leaseTtlSeconds);
    return p;
  }

  private static void put(Map<String, String> p, String key, Object value) {
    if (value != null && !value.toString().isBlank()) {
      p.put(key, value.toString().trim());
    }
  }

  /** One shard of the static shard map. */
  public static class Shard {
    /** JDBC URL of the shard's primary (jdbc:postgresql://host:port/db). */
    private String url;

    /** JDBC URLs of the shard's streaming replicas; read-only transactions are served by them. */
    private List<String> replicas = new ArrayList<>();

    /** Relative weight: a weight-2 shard owns twice the buckets of a weight-1 shard. */
    private Integer weight = 1;

    /** The shard's state: active (default), read_only or offline. */
    private String state;

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public List<String> getReplicas() {
      return replicas;
    }

    public void setReplicas(List<String> replicas) {
      this.replicas = replicas;
    }

    public Integer getWeight() {
      return weight;
    }

    public void setWeight(Integer weight) {
      this.weight = weight;
    }

    public String getState() {
      return state;
    }

    public void setState(String state) {
      this.state = state;
    }
  }

  /** The consistent-hash ring strategy. */
  public static class Ring {
    /** Virtual nodes per unit of weight (runtime default 256). */
    private Integer vnodes;

    public Integer getVnodes() {
      return vnodes;
    }

    public void setVnodes(Integer vnodes) {
      this.vnodes = vnodes;
    }
  }

  /** The control database that holds the shard map (and the logs of cross-shard transactions). */
  public static class Control {
    /** JDBC URL of the control database; when set, the shard map is read from it. */
    private String url;

    /** Initialise an empty control database from the static shard map. */
    private Boolean initialize = false;

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public Boolean getInitialize() {
      return initialize;
    }

    public void setInitialize(Boolean initialize) {
      this.initialize = initialize;
    }
  }

  /** The connection pool of every shard primary. */
  public static class Pool {
    /** Maximum connections per shard primary. */
    private Integer size = 10;

    /**
     * Connections each shard pool keeps open while idle, at most the pool size; 0 opens them on first
     * use, so a shard that is down at start-up delays nobody.
     */
    private Integer minIdle = 0;

    /** How long a session waits for a shard connection before ShardUnavailableException, in milliseconds. */
    private Integer connectionTimeoutMs = 5000;

    public Integer getMinIdle() {
      return minIdle;
    }

    public void setMinIdle(Integer minIdle) {
      this.minIdle = minIdle;
    }

    public Integer getSize() {
      return size;
    }

    public void setSize(Integer size) {
      this.size = size;
    }

    public Integer getConnectionTimeoutMs() {
      return connectionTimeoutMs;
    }

    public void setConnectionTimeoutMs(Integer connectionTimeoutMs) {
      this.connectionTimeoutMs = connectionTimeoutMs;
    }
  }

  /** Schema management on every shard at startup (instead of spring.jpa.hibernate.ddl-auto, which reaches one shard). */
  public static class Schema {
    /** none, create, drop-and-create, update or validate. */
    private String action = "none";

    public String getAction() {
      return action;
    }

    public void setAction(String action) {
      this.action = action;
    }
  }

  /** Flyway migrations on every shard (docs/operations.md#migrations). */
  public static class Migrations {
    /** Flyway locations of the scripts applied to every shard, comma-separated. */
    private String locations = "classpath:db/migration";

    /** At start, shards at different schema versions: refuse, mark-unavailable or off. */
    private String gate = "refuse";

    /** Flyway's history table on every shard. */
    private String table = "flyway_schema_history";

    /** The version that existing tables of a shard without a history table stand for; unset refuses such a shard. */
    private String baselineVersion;

    public String getLocations() {
      return locations;
    }

    public void setLocations(String locations) {
      this.locations = locations;
    }

    public String getGate() {
      return gate;
    }

    public void setGate(String gate) {
      this.gate = gate;
    }

    public String getTable() {
      return table;
    }

    public void setTable(String table) {
      this.table = table;
    }

    public String getBaselineVersion() {
      return baselineVersion;
    }

    public void setBaselineVersion(String baselineVersion) {
      this.baselineVersion = baselineVersion;
    }
  }

  /** Read replicas. */
  public static class Replica {
    /** How a replica is chosen: round_robin or least_outstanding. */
    private String balance = "round_robin";

    /** A replica further behind its primary than this is out of rotation, in milliseconds. */
    private Integer maxLagMs = 5000;

    /** A replica further behind its primary than this many WAL bytes is out of rotation. */
    private Integer maxLagBytes = 67_108_864;

    /** How often the monitor checks every replica, in milliseconds. */
    private Integer monitorIntervalMs = 200;

    /** How long a read waits for a replica connection before it falls back to the primary, in milliseconds. */
    private Integer connectionTimeoutMs = 1000;

    public String getBalance() {
      return balance;
    }

    public void setBalance(String balance) {
      this.balance = balance;
    }

    public Integer getMaxLagMs() {
      return maxLagMs;
    }

    public void setMaxLagMs(Integer maxLagMs) {
      this.maxLagMs = maxLagMs;
    }

    public Integer getMaxLagBytes() {
      return maxLagBytes;
    }

    public void setMaxLagBytes(Integer maxLagBytes) {
      this.maxLagBytes = maxLagBytes;
    }

    public Integer getMonitorIntervalMs() {
      return monitorIntervalMs;
    }

    public void setMonitorIntervalMs(Integer monitorIntervalMs) {
      this.monitorIntervalMs = monitorIntervalMs;
    }

    public Integer getConnectionTimeoutMs() {
      return connectionTimeoutMs;
    }

    public void setConnectionTimeoutMs(Integer connectionTimeoutMs) {
      this.connectionTimeoutMs = connectionTimeoutMs;
    }
  }

  /** Read-only units of work on replicas. */
  public static class Read {
    private final Hedge hedge = new Hedge();

    public Hedge getHedge() {
      return hedge;
    }
  }

  /** Hedged replica reads (docs/failure-handling.md, Hedged replica reads). */
  public static class Hedge {
    /** Hedge read-only ShardRoute units of work still running on a replica after the hedge delay (runtime default false). */
    private Boolean enabled;

    /** The percentile of a replica's recent units the hedge delay starts from, 50..99 (runtime default 95). */
    private Integer percentile;

    /** What that percentile is multiplied by, 1..100 (runtime default 2). */
    private Double multiplier;

    /** The shortest hedge delay, in milliseconds (runtime default 20). */
    private Integer floorMs;

    /** The longest hedge delay, and the delay until a replica has 20 units, in milliseconds (runtime default 1000). */
    private Integer ceilingMs;

    public Boolean getEnabled() {
      return enabled;
    }

    public void setEnabled(Boolean enabled) {
      this.enabled = enabled;
    }

    public Integer getPercentile() {
      return percentile;
    }

    public void setPercentile(Integer percentile) {
      this.percentile = percentile;
    }

    public Double getMultiplier() {
      return multiplier;
    }

    public void setMultiplier(Double multiplier) {
      this.multiplier = multiplier;
    }

    public Integer getFloorMs() {
      return floorMs;
    }

    public void setFloorMs(Integer floorMs) {
      this.floorMs = floorMs;
    }

    public Integer getCeilingMs() {
      return ceilingMs;
    }

    public void setCeilingMs(Integer ceilingMs) {
      this.ceilingMs = ceilingMs;
    }
  }

  /** Read-your-writes. */
  public static class Ryw {
    /** HMAC secret that signs consistency tokens; the same on every instance, 32+ random characters. */
    private String secret;

    /** How long an LSN pin is kept, in milliseconds. */
    private Integer pinTtlMs = 60_000;

    public String getSecret() {
      return secret;
    }

    public void setSecret(String secret) {
      this.secret = secret;
    }

    public Integer getPinTtlMs() {
      return pinTtlMs;
    }

    public void setPinTtlMs(Integer pinTtlMs) {
      this.pinTtlMs = pinTtlMs;
    }
  }

  /** Cross-shard transactions (two-phase commit), when a control database is set. */
  public static class Tx {
    /** Whether cross-shard transactions, sagas and reference-table writes are available. */
    private Boolean enabled = true;

    /** How often recovery looks for in-doubt prepared transactions and unfinished sagas, in milliseconds. */
    private Integer recoveryIntervalMs = 10_000;

    /** How long a live coordinator's prepared transaction is left alone before recovery may abort it, in milliseconds. */
    private Integer inDoubtGraceMs = 60_000;

    public Boolean getEnabled() {
      return enabled;
    }

    public void setEnabled(Boolean enabled) {
      this.enabled = enabled;
    }

    public Integer getRecoveryIntervalMs() {
      return recoveryIntervalMs;
    }

    public void setRecoveryIntervalMs(Integer recoveryIntervalMs) {
      this.recoveryIntervalMs = recoveryIntervalMs;
    }

    public Integer getInDoubtGraceMs() {
      return inDoubtGraceMs;
    }

    public void setInDoubtGraceMs(Integer inDoubtGraceMs) {
      this.inDoubtGraceMs = inDoubtGraceMs;
    }
  }

  /** Sagas. */
  public static class Saga {
    /** Attempts of a saga step on transient failures before the saga compensates. */
    private Integer maxAttempts = 5;

    /** First backoff between saga step attempts, doubled each time, in milliseconds. */
    private Integer backoffMs = 50;

    public Integer getMaxAttempts() {
      return maxAttempts;
    }

    public void setMaxAttempts(Integer maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    public Integer getBackoffMs() {
      return backoffMs;
    }

    public void setBackoffMs(Integer backoffMs) {
      this.backoffMs = backoffMs;
    }
  }

  /** Scatter-gather queries. */
  public static class Scatter {
    /** Threads of the scatter-gather pool (JDK 17; on 21+ parts run on virtual threads); default twice the shard count, at least 4, at most 16. */
    private Integer threads;

    public Integer getThreads() {
      return threads;
    }

    public void setThreads(Integer threads) {
      this.threads = threads;
    }
  }

  /** Hotspot counting and the shard key check (docs/operations.md, Hotspots). */
  public static class Hotspots {
    /** Count sessions routed by key per bucket and sample their keys (runtime default true). */
    private Boolean enabled;

    /** One routed key in this many feeds the hot-key summary; a power of two (runtime default 64). */
    private Integer sample;

    /** off (runtime default) or startup: log warnings for shard keys whose statistics look low-cardinality at startup. */
    private String keyCheck;

    public Boolean getEnabled() {
      return enabled;
    }

    public void setEnabled(Boolean enabled) {
      this.enabled = enabled;
    }

    public Integer getSample() {
      return sample;
    }

    public void setSample(Integer sample) {
      this.sample = sample;
    }

    public String getKeyCheck() {
      return keyCheck;
    }

    public void setKeyCheck(String keyCheck) {
      this.keyCheck = keyCheck;
    }
  }

  /** The id strategy of sharded entities that declare none. */
  public static class Ids {
    /** Bound as shardwise.ids.default (a field cannot be named default); described in additional-spring-configuration-metadata.json. */
    private String defaultStrategy;

    /** shardwise.ids.default: none or snowflake. */
    public String getDefault() {
      return defaultStrategy;
    }

    public void setDefault(String defaultStrategy) {
      this.defaultStrategy = defaultStrategy;
    }

    /**
     * per_shard (runtime default) or cluster: @GeneratedValue ids of sharded entities keep their type
     * and mapping, and their values come from a counter per table in the control database.
     */
    private String generated;

    public String getGenerated() {
      return generated;
    }

    public void setGenerated(String generated) {
      this.generated = generated;
    }
  }

  /** Snowflake ids. */
  public static class Snowflake {
    /** A fixed worker id for this instance (instead of a leased one). */
    private Integer workerId;

    /** system (read the clock for every id) or ticking (fixed worker ids only). */
    private String clock;

    /** JDBC URL of the control database to lease a worker id from. */
    private String leaseUrl;

    /** User for the lease database. */
    private String leaseUser;

    /** Password for the lease database. */
    private String leasePassword;

    /** Lease time-to-live in seconds (runtime default 30). */
    private Integer leaseTtlSeconds;

    public Integer getWorkerId() {
      return workerId;
    }

    public void setWorkerId(Integer workerId) {
      this.workerId = workerId;
    }

    public String getClock() {
      return clock;
    }

    public void setClock(String clock) {
      this.clock = clock;
    }

    public String getLeaseUrl() {
      return leaseUrl;
    }

    public void setLeaseUrl(String leaseUrl) {
      this.leaseUrl = leaseUrl;
    }

    public String getLeaseUser() {
      return leaseUser;
    }

    public void setLeaseUser(String leaseUser) {
      this.leaseUser = leaseUser;
    }

    public String getLeasePassword() {
      return leasePassword;
    }

    public void setLeasePassword(String leasePassword) {
      this.leasePassword = leasePassword;
    }

    public Integer getLeaseTtlSeconds() {
      return leaseTtlSeconds;
    }

    public void setLeaseTtlSeconds(Integer leaseTtlSeconds) {
      this.leaseTtlSeconds = leaseTtlSeconds;
    }
  }

  /** Choosing the shard of a web request (Spring MVC). */
  public static class Web {
    /** Request header that carries the shard key, e.g. X-Merchant-Id. */
    private String keyHeader;

    /** Path variable that carries the shard key, e.g. merchantId for /merchants/{merchantId}/orders. */
    private String keyPathVariable;

    /** Java type of the shard key read from the request: long, int, string or uuid. */
    private String keyType = "long";

    /** Response header naming the shard that served the request (leave empty for none). */
    private String shardHeader;

    /**
     * Request and response header carrying the signed consistency token (read-your-writes across
     * requests), e.g. X-Consistency-Token; needs shardwise.ryw.secret. Empty: no token.
     */
    private String consistencyHeader;

    /**
     * Cookie carrying the consistency token, like consistency-header; set on any response of a
     * request that committed a write (redirects and views too). Empty: no cookie.
     */
    private String consistencyCookie;

    public String getConsistencyHeader() {
      return consistencyHeader;
    }

    public void setConsistencyHeader(String consistencyHeader) {
      this.consistencyHeader = consistencyHeader;
    }

    public String getConsistencyCookie() {
      return consistencyCookie;
    }

    public void setConsistencyCookie(String consistencyCookie) {
      this.consistencyCookie = consistencyCookie;
    }

    public String getKeyHeader() {
      return keyHeader;
    }

    public void setKeyHeader(String keyHeader) {
      this.keyHeader = keyHeader;
    }

    public String getKeyPathVariable() {
      return keyPathVariable;
    }

    public void setKeyPathVariable(String keyPathVariable) {
      this.keyPathVariable = keyPathVariable;
    }

    public String getKeyType() {
      return keyType;
    }

    public void setKeyType(String keyType) {
      this.keyType = keyType;
    }

    public String getShardHeader() {
      return shardHeader;
    }

    public void setShardHeader(String shardHeader) {
      this.shardHeader = shardHeader;
    }
  }

  public List<String> getShards() {
    return shards;
  }

  public void setShards(List<String> shards) {
    this.shards = shards;
  }

  public Map<String, Shard> getShard() {
    return shard;
  }

  public void setShard(Map<String, Shard> shard) {
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

  public Ring getRing() {
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

  public Control getControl() {
    return control;
  }

  public Pool getPool() {
    return pool;
  }

  public Schema getSchema() {
    return schema;
  }

  public Migrations getMigrations() {
    return migrations;
  }

  public Read getRead() {
    return read;
  }

  public Replica getReplica() {
    return replica;
  }

  public Ryw getRyw() {
    return ryw;
  }

  public Tx getTx() {
    return tx;
  }

  public Saga getSaga() {
    return saga;
  }

  public Scatter getScatter() {
    return scatter;
  }

  public Snowflake getSnowflake() {
    return snowflake;
  }

  public Web getWeb() {
    return web;
  }
}
