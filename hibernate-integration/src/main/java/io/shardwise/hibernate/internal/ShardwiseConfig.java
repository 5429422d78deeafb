package io.shardwise.hibernate.internal;

import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.migrations.VersionGate;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardingStrategies;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Shardwise's settings: every {@code shardwise.*} key of a persistence unit read, checked and typed
 * in one pass when the session factory is built, before anything connects. One exception lists
 * every problem and names the persistence unit; a key Shardwise does not know is a problem too,
 * with the nearest known key as a suggestion. Components take the typed values from here and read
 * no property themselves. Immutable.
 *
 * <p>This file owns the typed values, one record per capability, and their accessors. The parse is
 * {@link ConfigParser}'s, the known keys and the did-you-mean {@link KnownSettings}', and every key's
 * default, range and description {@link SettingRegistry}'s.
 */
public final class ShardwiseConfig {

  /** What to do with the schema on every shard at startup. */
  public enum SchemaAction { NONE, CREATE, UPDATE, VALIDATE }

  /**
   * Cross-shard transactions and sagas ({@code shardwise.tx.*}, {@code shardwise.saga.*}).
   *
   * @param enabled whether a runtime with a control database starts the coordinator
   * @param recoveryIntervalMs how often recovery runs
   * @param inDoubtGraceMs how long a live coordinator's prepared transaction is left alone
   * @param logPoolSize connections of the decision-log pool
   * @param sagaMaxAttempts attempts of a saga step before the saga compensates
   * @param sagaBackoffMs first backoff between saga step attempts
   */
  public record Transactions(boolean enabled, long recoveryIntervalMs, long inDoubtGraceMs, int logPoolSize,
      int sagaMaxAttempts, long sagaBackoffMs) {}

  /**
   * The scatter-gather fan-out ({@code shardwise.scatter.*}).
   *
   * @param threads the configured thread count, or 0 to size the pool by the shard count
   * @param maxRows the most rows one scatter-gather query may hold, summed over its shards
   * @param fetchSize rows per round trip of each shard's server-side cursor
   */
  /**
   * Hedged replica reads ({@code shardwise.read.hedge.*}): a read-only unit of work still running on
   * a replica after {@code clamp(percentile of that replica's recent units × multiplier, floor,
   * ceiling)} runs once more on another node, and the first answer wins.
   *
   * @param enabled whether read-only routes hedge unless a route says otherwise ({@code ShardRoute.hedged})
   * @param percentile the percentile of the replica's recent unit latencies the delay starts from (50..99)
   * @param multiplier what that percentile is multiplied by (1..100)
   * @param floorMs the shortest delay, whatever the percentile says
   * @param ceilingMs the longest delay, and the delay while a replica has too few samples for a percentile
   */
  public record ReadHedge(boolean enabled, int percentile, double multiplier, long floorMs, long ceilingMs) {}

  public record Scatter(int threads, int maxRows, int fetchSize) {
    /**
     * The pool size for {@code shardCount} shards: the configured count, else twice the shards
     * within 4..16 — past 8 shards the fan-out's threads no longer grow with the shards (on JDK 21+
     * the parts run on virtual threads, and this bounds only how many wait in line).
     */
    public int threadsFor(int shardCount) {
      return threads > 0 ? threads : Math.min(16, Math.max(4, 2 * shardCount));
    }
  }

  /**
   * Online resharding ({@code shardwise.reshard.*}).
   *
   * @param pauseLimitMs the longest write pause of a write switch
   * @param maxSwitchLagBytes the catch-up lag above which a write switch is not attempted
   * @param verifyThreads parallel checksum queries
   * @param deleteBatchRows rows per delete transaction when a move completes
   * @param fenceGraceMs with the router lease off only: the wait before the copy, and how long the source's fences
   *     outlive the write switch
   * @param statementTimeoutMs the statement timeout of a move's connections to the shards
   */
  public record Resharding(long pauseLimitMs, long maxSwitchLagBytes, int verifyThreads, int deleteBatchRows,
      long fenceGraceMs, long statementTimeoutMs) {}

  /**
   * The server-side timeouts of the connections Shardwise opens to the control database
   * ({@code shardwise.control.lock_timeout_ms}, {@code statement_timeout_ms}).
   */
  public record ControlTimeouts(long lockTimeoutMs, long statementTimeoutMs) {}

  /**
   * Schema migrations on every shard ({@code shardwise.migrations.*}).
   *
   * @param locations Flyway locations of the scripts
   * @param gate what start-up does with shards at different versions
   * @param table Flyway's history table on every shard
   * @param baselineVersion the version of a shard's tables made before migrations, or null
   */
  public record MigrationSettings(List<String> locations, VersionGate gate, String table, String baselineVersion) {}

  /**
   * The deadlines of the connections to one kind of server (a shard's primary, or its replicas),
   * every value in milliseconds, 0 meaning none (connect and checkout timeouts are never 0).
   *
   * @param connectTimeoutMs pgjdbc {@code connectTimeout} (the driver takes whole seconds, rounded up)
   * @param socketTimeoutMs pgjdbc {@code socketTimeout}: the longest wait for one read from the server
   * @param statementTimeoutMs server-side {@code statement_timeout}
   * @param lockTimeoutMs server-side {@code lock_timeout}
   * @param idleInTransactionTimeoutMs server-side {@code idle_in_transaction_session_timeout}
   * @param connectionTimeoutMs HikariCP {@code connectionTimeout}: the longest wait for a pooled connection
   */
  public record NodeTimeouts(long connectTimeoutMs, long socketTimeoutMs, long statementTimeoutMs,
      long lockTimeoutMs, long idleInTransactionTimeoutMs, long connectionTimeoutMs) {

    /** The same with the checkout timeout replaced. */
    NodeTimeouts withConnectionTimeout(long ms) {
      return new NodeTimeouts(connectTimeoutMs, socketTimeoutMs, statementTimeoutMs, lockTimeoutMs,
          idleInTransactionTimeoutMs, ms);
    }

    /** pgjdbc's {@code options}: the server-side timeouts, sent in the startup packet (no extra round trip). */
    public String serverOptions() {
      return "-c statement_timeout=" + statementTimeoutMs + " -c lock_timeout=" + lockTimeoutMs
          + " -c idle_in_transaction_session_timeout=" + idleInTransactionTimeoutMs;
    }

    /** Whole seconds for the driver, rounded up (0 stays 0). */
    public static long driverSeconds(long ms) {
      return (ms + 999) / 1000;
    }
  }

  private final String unitName;
  private final ShardMap staticMap;
  private final String controlUrl;
  private final boolean controlInitialize;
  private final boolean ddlCreate;
  private final String user;
  private final String password;
  private final int poolSize;
  private final int poolMinIdle;
  private final long connectionTimeoutMs;
  private final SchemaAction schemaAction;
  private final ShardingStrategies.Settings strategy;
  private final boolean leastOutstanding;
  private final long replicaMaxLagMs;
  private final long replicaMaxLagBytes;
  private final long replicaMonitorIntervalMs;
  private final long replicaConnectionTimeoutMs;
  private final byte[] rywSecret;
  private final byte[] rywAcceptedSecret;
  private final long pinTtlMs;
  private final Scatter scatter;
  private final ReadHedge readHedge;
  private final Transactions transactions;
  private final SnowflakeSettings snowflake;
  private final long controlVersionCheckIntervalMs;
  private final long routerLeaseMs;
  private final ControlTimeouts controlTimeouts;
  private final Resharding resharding;
  private final NodeTimeouts primaryTimeouts;
  private final int breakerFailureThreshold;
  private final int bulkheadMaxConcurrent;
  private final long breakerOpenMs;
  private final NodeTimeouts replicaTimeouts;
  private final Map<String, NodeTimeouts> primaryTimeoutsByShard;
  private final Map<String, NodeTimeouts> replicaTimeoutsByShard;

  private final Object meterRegistry;
  private final Object observationRegistry;
  private final boolean snowflakeIdsByDefault;
  private final boolean clusterIds;
  private final MigrationSettings migrations;
  private final Hotspots hotspots;

  /**
   * Hotspot counting ({@code shardwise.hotspots.*}).
   *
   * @param sampleEvery one routed key in this many feeds the key summary (a power of two)
   * @param keyCheckAtStartup whether the shard key statistics check runs when the factory starts
   */
  public record Hotspots(boolean enabled, int sampleEvery, boolean keyCheckAtStartup) {}

  private ShardwiseConfig(ConfigParser p) {
    this.migrations = p.migrations;
    this.snowflakeIdsByDefault = p.snowflakeIdsByDefault;
    this.clusterIds = p.clusterIds;
    this.meterRegistry = p.meterRegistry;
    this.observationRegistry = p.observationRegistry;
    this.hotspots = p.hotspots;
    this.primaryTimeouts = p.primaryTimeouts;
    this.breakerFailureThreshold = p.breakerFailureThreshold;
    this.bulkheadMaxConcurrent = p.bulkheadMaxConcurrent;
    this.breakerOpenMs = p.breakerOpenMs;
    this.replicaTimeouts = p.replicaTimeouts;
    this.primaryTimeoutsByShard = Map.copyOf(p.primaryTimeoutsByShard);
    this.replicaTimeoutsByShard = Map.copyOf(p.replicaTimeoutsByShard);
    this.controlVersionCheckIntervalMs = p.controlVersionCheckIntervalMs;
    this.routerLeaseMs = p.routerLeaseMs;
    this.resharding = p.resharding;
    this.controlTimeouts = p.controlTimeouts;
    this.unitName = p.unitName;
    this.staticMap = p.staticMap;
    this.controlUrl = p.controlUrl;
    this.controlInitialize = p.controlInitialize;
    this.ddlCreate = p.ddlCreate;
    this.user = p.user;
    this.password = p.password;
    this.poolSize = p.poolSize;
    this.poolMinIdle = p.poolMinIdle;
    this.connectionTimeoutMs = p.connectionTimeoutMs;
    this.schemaAction = p.schemaAction;
    this.strategy = p.strategy;
    this.leastOutstanding = p.leastOutstanding;
    this.replicaMaxLagMs = p.replicaMaxLagMs;
    this.replicaMaxLagBytes = p.replicaMaxLagBytes;
    this.replicaMonitorIntervalMs = p.replicaMonitorIntervalMs;
    this.replicaConnectionTimeoutMs = p.replicaConnectionTimeoutMs;
    this.rywSecret = p.rywSecret;
    this.rywAcceptedSecret = p.rywAcceptedSecret;
    this.pinTtlMs = p.pinTtlMs;
    this.scatter = p.scatter;
    this.readHedge = p.readHedge;
    this.transactions = p.transactions;
    this.snowflake = p.snowflake;
  }

  public String unitName() {
    return unitName;
  }

  /** The shard map given in configuration, or null when the control database holds it alone. */
  public ShardMap staticMap() {
    return staticMap;
  }

  public String controlUrl() {
    return controlUrl;
  }

  public boolean controlInitialize() {
    return controlInitialize;
  }

  /**
   * {@code shardwise.ddl = create}: Shardwise creates its own objects when missing; otherwise
   * ({@code validate}, the default) it only checks them and fails with the SQL to run.
   */
  public boolean ddlCreate() {
    return ddlCreate;
  }

  /**
   * {@code shardwise.ddl}: true for {@code create}, false for {@code validate} or unset; anything
   * else adds a problem.
   */
  static boolean parseDdl(String text, List<String> problems) {
    if (text == null || text.isBlank()) {
      return false;
    }
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "create" -> true;
      case "validate" -> false;
      default -> {
        problems.add(ShardwiseSettings.DDL + " = '" + text + "' is not validate (the default: check Shardwise's own"
            + " tables and fail with the SQL to run) or create (create them, which needs CREATE on each database)");
        yield false;
      }
    };
  }

  /** How often a router checks the control database's map version besides listening for changes. */
  public long controlVersionCheckIntervalMs() {
    return controlVersionCheckIntervalMs;
  }

  /**
   * How long a router routes without confirming its map with the control database (ms); 0: no lease
   * (moves then wait {@code fence_grace_ms} instead of acknowledgements).
   */
  public long routerLeaseMs() {
    return routerLeaseMs;
  }

  /** The timeouts of Shardwise's own connections to the control database. */
  public ControlTimeouts controlDatabaseTimeouts() {
    return controlTimeouts;
  }

  /** The control database, its connections under {@link #controlDatabaseTimeouts()}; null without a control URL. */
  public io.shardwise.hibernate.routing.ControlDatabase controlDatabase() {
    return controlUrl == null ? null : new io.shardwise.hibernate.routing.ControlDatabase(controlUrl, user, password)
        .withTimeouts(controlTimeouts.lockTimeoutMs(), controlTimeouts.statementTimeoutMs());
  }

  /** Online resharding settings. */
  public Resharding resharding() {
    return resharding;
  }

  /** Hotspot counting and the shard key check ({@code shardwise.hotspots.*}). */
  public Hotspots hotspots() {
    return hotspots;
  }

  /** The Micrometer {@code MeterRegistry} of {@link ShardwiseSettings#METER_REGISTRY}, or null for no metrics. */
  public Object meterRegistry() {
    return meterRegistry;
  }

  /** The Micrometer {@code ObservationRegistry} of {@link ShardwiseSettings#OBSERVATION_REGISTRY}, or null for no traces. */
  public Object observationRegistry() {
    return observationRegistry;
  }

  public String user() {
    return user;
  }

  public String password() {
    return password;
  }

  public int poolSize() {
    return poolSize;
  }

  /** Connections a pool keeps open while idle; 0 opens them on first use. */
  public int poolMinIdle() {
    return poolMinIdle;
  }

  public long connectionTimeoutMs() {
    return connectionTimeoutMs;
  }

  /** The deadlines of connections to {@code shardId}'s primary, or (with {@code replica}) to its replicas. */
  public NodeTimeouts timeouts(String shardId, boolean replica) {
    NodeTimeouts own = (replica ? replicaTimeoutsByShard : primaryTimeoutsByShard).get(shardId);
    return own != null ? own : replica ? replicaTimeouts : primaryTimeouts;
  }

  /**
   * The deadlines of connections to the control database's transaction log: the primaries', with
   * {@code shardwise.pool.connection_timeout_ms} as the checkout timeout.
   */
  public NodeTimeouts controlTimeouts() {
    return primaryTimeouts.withConnectionTimeout(connectionTimeoutMs);
  }

  /** Consecutive timeouts or connection failures that open a server's circuit breaker. */
  public int breakerFailureThreshold() {
    return breakerFailureThreshold;
  }

  /** The most units of work that may hold or wait for one shard primary's connections at once. */
  public int bulkheadMaxConcurrent() {
    return bulkheadMaxConcurrent;
  }

  /** How long an open breaker refuses calls before one probe. */
  public long breakerOpenMs() {
    return breakerOpenMs;
  }

  public SchemaAction schemaAction() {
    return schemaAction;
  }

  /** Where the migration scripts are, the version gate, the history table. */
  public MigrationSettings migrations() {
    return migrations;
  }

  /** The routing strategy, checked; built over each version of the shard map. */
  public ShardingStrategies.Settings strategy() {
    return strategy;
  }

  public boolean leastOutstanding() {
    return leastOutstanding;
  }

  public long replicaMaxLagMs() {
    return replicaMaxLagMs;
  }

  public long replicaMaxLagBytes() {
    return replicaMaxLagBytes;
  }

  public long replicaMonitorIntervalMs() {
    return replicaMonitorIntervalMs;
  }

  public long replicaConnectionTimeoutMs() {
    return replicaConnectionTimeoutMs;
  }

  /** The consistency-token secret, or null when none is configured. */
  public byte[] rywSecret() {
    return rywSecret == null ? null : rywSecret.clone();
  }

  /** A second secret whose tokens are accepted but never issued (secret rotation), or null. */
  public byte[] rywAcceptedSecret() {
    return rywAcceptedSecret == null ? null : rywAcceptedSecret.clone();
  }

  public long pinTtlMs() {
    return pinTtlMs;
  }

  public Scatter scatter() {
    return scatter;
  }

  public ReadHedge readHedge() {
    return readHedge;
  }

  public Transactions transactions() {
    return transactions;
  }

  /** Whether sharded entities with a {@code Long} id and no generator get {@code @SnowflakeId} ({@code shardwise.ids.default = snowflake}). */
  public boolean snowflakeIdsByDefault() {
    return snowflakeIdsByDefault;
  }

  /**
   * Whether database-generated ids of sharded entities come from the control database's counters
   * ({@code shardwise.ids.generated = cluster}) instead of each shard's identity or sequence.
   */
  public boolean clusterIds() {
    return clusterIds;
  }

  /** Where {@code @SnowflakeId} generators get their worker id. */
  public SnowflakeSettings snowflake() {
    return snowflake;
  }

  /**
   * Reads and checks every {@code shardwise.*} setting of {@code settings} (the session factory's
   * settings, in which Hibernate includes the system properties).
   *
   * @throws ShardingConfigurationException listing every problem, naming the persistence unit
   */
  public static ShardwiseConfig from(Map<String, Object> settings) {
    ConfigParser parser = new ConfigParser(settings);
    parser.parse();
    if (!parser.problems.isEmpty()) {
      throw new ShardingConfigurationException("Shardwise configuration of persistence unit '" + parser.unitName
          + "' is invalid:\n  - " + String.join("\n  - ", parser.problems));
    }
    return new ShardwiseConfig(parser);
  }
}
