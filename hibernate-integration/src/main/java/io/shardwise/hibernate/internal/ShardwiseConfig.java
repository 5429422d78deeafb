package io.shardwise.hibernate.internal;

import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.migrations.VersionGate;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardState;
import io.shardwise.hibernate.routing.ShardingStrategies;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Shardwise's settings: every {@code shardwise.*} key of a persistence unit read, checked and typed
 * in one pass when the session factory is built, before anything connects. One exception lists
 * every problem and names the persistence unit; a key Shardwise does not know is a problem too,
 * with the nearest known key as a suggestion. Components take the typed values from here and read
 * no property themselves. Immutable.
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

  /** Names under {@code shardwise.primary.}, {@code shardwise.replica.} and {@code shardwise.shard.<id>.primary|replica.}. */
  static final List<String> TIMEOUT_NAMES = List.of(ShardwiseSettings.CONNECT_TIMEOUT_MS,
      ShardwiseSettings.SOCKET_TIMEOUT_MS, ShardwiseSettings.STATEMENT_TIMEOUT_MS, ShardwiseSettings.LOCK_TIMEOUT_MS,
      ShardwiseSettings.IDLE_IN_TRANSACTION_TIMEOUT_MS);

  /** A per-shard key with a role: {@code shardwise.shard.<id>.primary|replica.<name>}. */
  private static final java.util.regex.Pattern SHARD_ROLE_KEY = java.util.regex.Pattern.compile(
      java.util.regex.Pattern.quote(ShardwiseSettings.SHARD_PREFIX) + "(.+)\\.(primary|replica)\\.([a-z_]+)");

  /** Keys Shardwise reads under {@code shardwise.shard.<id>.}. */
  private static final List<String> SHARD_ATTRIBUTES = List.of("url", "replicas", "weight", "state");

  /** Every fixed key. Per-shard, range and directory keys are patterns, matched in {@link #isKnown}. */
  private static final Set<String> KNOWN_KEYS = Set.copyOf(knownKeys());

  /** Keys of other Shardwise modules that share the JVM's system properties (Hibernate copies those in). */
  private static final List<String> FOREIGN_PREFIXES = List.of("shardwise.testkit.");

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

  private ShardwiseConfig(Parser p) {
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
    Parser parser = new Parser(settings);
    parser.parse();
    if (!parser.problems.isEmpty()) {
      throw new ShardingConfigurationException("Shardwise configuration of persistence unit '" + parser.unitName
          + "' is invalid:\n  - " + String.join("\n  - ", parser.problems));
    }
    return new ShardwiseConfig(parser);
  }

  /** One pass over the settings; collects problems instead of stopping at the first. */
  private static final class Parser {
    final Map<String, Object> settings;
    final Map<String, String> p = new TreeMap<>();
    final List<String> problems = new ArrayList<>();
    String unitName;
    ShardMap staticMap;
    String controlUrl;
    boolean controlInitialize;
    boolean ddlCreate;
    String user;
    String password;
    int poolSize;
    int poolMinIdle;
    long connectionTimeoutMs;
    SchemaAction schemaAction = SchemaAction.NONE;
    ShardingStrategies.Settings strategy;
    boolean leastOutstanding;
    long replicaMaxLagMs;
    long replicaMaxLagBytes;
    long replicaMonitorIntervalMs;
    long replicaConnectionTimeoutMs;
    byte[] rywSecret;
    byte[] rywAcceptedSecret;
    long pinTtlMs;
    Scatter scatter;
    Transactions transactions;
    SnowflakeSettings snowflake;
    long controlVersionCheckIntervalMs;
    long routerLeaseMs;
    Resharding resharding;
    ControlTimeouts controlTimeouts;
    NodeTimeouts primaryTimeouts;
    int breakerFailureThreshold;
    int bulkheadMaxConcurrent;
    long breakerOpenMs;
    NodeTimeouts replicaTimeouts;
    final Map<String, NodeTimeouts> primaryTimeoutsByShard = new TreeMap<>();
    final Map<String, NodeTimeouts> replicaTimeoutsByShard = new TreeMap<>();
    Object meterRegistry;
    Object observationRegistry;
    boolean snowflakeIdsByDefault;
    boolean clusterIds;
    MigrationSettings migrations;
    Hotspots hotspots;

    Parser(Map<String, Object> settings) {
      this.settings = settings;
    }

    void parse() {
      unitName = firstNonBlank("hibernate.persistenceUnitName", "hibernate.session_factory_name");
      unitName = unitName == null ? "default" : unitName;
      for (Map.Entry<String, Object> e : settings.entrySet()) {
        if (e.getKey().startsWith("shardwise.") && e.getValue() != null
            && FOREIGN_PREFIXES.stream().noneMatch(e.getKey()::startsWith)) {
          p.put(e.getKey(), e.getValue().toString().trim());
        }
      }
      rejectUnknownKeys();

      user = firstNonBlank(ShardwiseSettings.USER, "jakarta.persistence.jdbc.user", "hibernate.connection.username",
          "hibernate.connection.user");
      password = firstNonBlank(ShardwiseSettings.PASSWORD, "jakarta.persistence.jdbc.password",
          "hibernate.connection.password");
      poolSize = intSetting(ShardwiseSettings.POOL_SIZE, 10, 1, 1000);
      poolMinIdle = intSetting(ShardwiseSettings.POOL_MIN_IDLE, 0, 0, 1000);
      if (poolMinIdle > poolSize) {
        problems.add(ShardwiseSettings.POOL_MIN_IDLE + " = " + poolMinIdle + " is more than "
            + ShardwiseSettings.POOL_SIZE + " = " + poolSize + "; a pool cannot keep more idle connections than it"
            + " holds");
      }
      connectionTimeoutMs = intSetting(ShardwiseSettings.CONNECTION_TIMEOUT, 5000, 250, 600_000);
      int buckets = intSetting(ShardwiseSettings.BUCKETS, ShardMap.DEFAULT_BUCKETS, 1, 1 << 20);

      String balance = p.getOrDefault(ShardwiseSettings.REPLICA_BALANCE, "round_robin").toLowerCase(Locale.ROOT);
      if (!balance.equals("round_robin") && !balance.equals("least_outstanding")) {
        problems.add(ShardwiseSettings.REPLICA_BALANCE + " = '" + balance
            + "' is not round_robin or least_outstanding");
      }
      leastOutstanding = balance.equals("least_outstanding");
      replicaMaxLagMs = intSetting(ShardwiseSettings.REPLICA_MAX_LAG_MS, 5000, 1, 3_600_000);
      replicaMaxLagBytes = intSetting(ShardwiseSettings.REPLICA_MAX_LAG_BYTES, 64 << 20, 1, Integer.MAX_VALUE);
      replicaMonitorIntervalMs = intSetting(ShardwiseSettings.REPLICA_MONITOR_INTERVAL, 200, 10, 60_000);
      replicaConnectionTimeoutMs = intSetting(ShardwiseSettings.REPLICA_CONNECTION_TIMEOUT, 1000, 250, 60_000);
      pinTtlMs = intSetting(ShardwiseSettings.RYW_PIN_TTL, 60_000, 1000, 86_400_000);
      String secret = p.get(ShardwiseSettings.RYW_SECRET);
      if (secret != null) {
        if (secret.length() < 32) {
          problems.add(ShardwiseSettings.RYW_SECRET + " is " + secret.length() + " characters; use at least 32"
              + " random characters (e.g. openssl rand -base64 32), the same on every instance");
        }
        rywSecret = secret.getBytes(StandardCharsets.UTF_8);
      }
      String acceptedSecret = p.get(ShardwiseSettings.RYW_ACCEPTED_SECRET);
      if (acceptedSecret != null) {
        if (acceptedSecret.length() < 32) {
          problems.add(ShardwiseSettings.RYW_ACCEPTED_SECRET + " is " + acceptedSecret.length() + " characters; a"
              + " secret has at least 32");
        }
        if (secret == null) {
          problems.add(ShardwiseSettings.RYW_ACCEPTED_SECRET + " is set without " + ShardwiseSettings.RYW_SECRET
              + ", which signs the tokens it issues");
        }
        rywAcceptedSecret = acceptedSecret.getBytes(StandardCharsets.UTF_8);
      }

      schemaAction();
      migrations();
      scatter = new Scatter(intSetting(ShardwiseSettings.SCATTER_THREADS, 0, 1, 1024),
          intSetting(ShardwiseSettings.SCATTER_MAX_ROWS, 100_000, 1, 100_000_000),
          intSetting(ShardwiseSettings.SCATTER_FETCH_SIZE, 1000, 1, 1_000_000));
      transactions = new Transactions(
          booleanSetting(ShardwiseSettings.TX_ENABLED, true),
          intSetting(ShardwiseSettings.TX_RECOVERY_INTERVAL, 10_000, 1, 86_400_000),
          intSetting(ShardwiseSettings.TX_IN_DOUBT_GRACE, 60_000, 1, 604_800_000),
          intSetting(ShardwiseSettings.TX_LOG_POOL_SIZE, 3, 1, 100),
          intSetting(ShardwiseSettings.SAGA_MAX_ATTEMPTS, 5, 1, 1000),
          intSetting(ShardwiseSettings.SAGA_BACKOFF, 50, 1, 3_600_000));
      String ddl = p.get(ShardwiseSettings.DDL);
      ddlCreate = parseDdl(ddl != null ? ddl : System.getProperty(ShardwiseSettings.DDL), problems);
      snowflake = SnowflakeSettings.parse(p::get, problems, ddlCreate);
      String ids = p.getOrDefault(ShardwiseSettings.IDS_DEFAULT, "none").toLowerCase(Locale.ROOT);
      switch (ids) {
        case "none" -> snowflakeIdsByDefault = false;
        case "snowflake" -> snowflakeIdsByDefault = true;
        default -> problems.add(ShardwiseSettings.IDS_DEFAULT + " = '" + ids + "' is not none or snowflake");
      }
      String generated = p.getOrDefault(ShardwiseSettings.IDS_GENERATED, "per_shard").toLowerCase(Locale.ROOT);
      switch (generated) {
        case "per_shard" -> clusterIds = false;
        case "cluster" -> clusterIds = true;
        default -> problems.add(ShardwiseSettings.IDS_GENERATED + " = '" + generated + "' is not per_shard or cluster");
      }
      strategy = ShardingStrategies.parse(p, null, problems);

      controlUrl = p.get(ShardwiseSettings.CONTROL_URL);
      if (controlUrl != null && !controlUrl.startsWith("jdbc:postgresql:")) {
        problems.add(ShardwiseSettings.CONTROL_URL + " = '" + JdbcUrls.redact(controlUrl)
            + "' is not a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database)");
      }
      controlInitialize = booleanSetting(ShardwiseSettings.CONTROL_INITIALIZE, false);
      controlVersionCheckIntervalMs = intSetting(ShardwiseSettings.CONTROL_VERSION_CHECK_INTERVAL, 1000, 1,
          86_400_000);
      routerLeaseMs = intSetting(ShardwiseSettings.CONTROL_ROUTER_LEASE, 120_000, 0, 86_400_000);
      if (controlUrl != null && routerLeaseMs > 0 && routerLeaseMs < 3 * controlVersionCheckIntervalMs) {
        problems.add(ShardwiseSettings.CONTROL_ROUTER_LEASE + " = " + routerLeaseMs + " is shorter than three "
            + ShardwiseSettings.CONTROL_VERSION_CHECK_INTERVAL + " (" + controlVersionCheckIntervalMs + " ms each):"
            + " a router would refuse work after one slow poll. Make the lease at least "
            + 3 * controlVersionCheckIntervalMs + ", or 0 to turn the lease off");
      }
      resharding = new Resharding(
          intSetting(ShardwiseSettings.RESHARD_PAUSE_LIMIT, 100, 1, 60_000),
          intSetting(ShardwiseSettings.RESHARD_MAX_SWITCH_LAG, 16 << 20, 0, Integer.MAX_VALUE),
          intSetting(ShardwiseSettings.RESHARD_VERIFY_THREADS, 4, 1, 64),
          intSetting(ShardwiseSettings.RESHARD_DELETE_BATCH, 5000, 1, 1_000_000),
          intSetting(ShardwiseSettings.RESHARD_FENCE_GRACE, 5000, 0, 86_400_000),
          intSetting(ShardwiseSettings.RESHARD_STATEMENT_TIMEOUT, 3_600_000, 1, 86_400_000));
      controlTimeouts = new ControlTimeouts(intSetting(ShardwiseSettings.CONTROL_LOCK_TIMEOUT, 5000, 1, 3_600_000),
          intSetting(ShardwiseSettings.CONTROL_STATEMENT_TIMEOUT, 30_000, 1, 86_400_000));
      timeouts();
      breakerFailureThreshold = intSetting(ShardwiseSettings.BREAKER_FAILURE_THRESHOLD, 3, 1, 1000);
      breakerOpenMs = intSetting(ShardwiseSettings.BREAKER_OPEN_MS, 1000, 10, 600_000);
      bulkheadMaxConcurrent = intSetting(ShardwiseSettings.BULKHEAD_MAX_CONCURRENT, 2 * poolSize, 1, 100_000);
      if (bulkheadMaxConcurrent < poolSize) {
        problems.add(ShardwiseSettings.BULKHEAD_MAX_CONCURRENT + " = " + bulkheadMaxConcurrent + " is below "
            + ShardwiseSettings.POOL_SIZE + " = " + poolSize + "; the pool could never be used fully. Lower the pool"
            + " size instead");
      }
      meterRegistry = meterRegistry();
      observationRegistry = observationRegistry();
      hotspots();
      staticMap = staticMap(buckets);
      if (staticMap == null && controlUrl == null && problems.isEmpty()) {
        problems.add("no shards configured: set " + ShardwiseSettings.SHARDS + " (with "
            + ShardwiseSettings.SHARD_PREFIX + "<id>.url for each) or " + ShardwiseSettings.CONTROL_URL
            + " to read the shard map from a control database");
      }
      if (clusterIds && controlUrl == null) {
        problems.add(ShardwiseSettings.IDS_GENERATED + " = cluster takes ids from counters in the control database:"
            + " set " + ShardwiseSettings.CONTROL_URL);
      }
      if (controlInitialize && (controlUrl == null || staticMap == null)) {
        problems.add(ShardwiseSettings.CONTROL_INITIALIZE + " = true needs both " + ShardwiseSettings.CONTROL_URL
            + " and a static map (" + ShardwiseSettings.SHARDS + ") to initialise it from");
      }
      if (staticMap != null && strategy != null) {
        try {
          ShardingStrategies.build(strategy, staticMap);
        } catch (IllegalArgumentException e) {
          problems.add(e.getMessage());
        }
      }
    }

    /**
     * The deadlines per role, then per shard. Defaults (docs/failure-handling.md says why): connect
     * 2 s to a primary and 1 s to a replica; statement 10 s, lock 5 s, idle in transaction 60 s;
     * socket 15 s, above the statement timeout so that a live server cancels its own slow statement
     * (a clean SQLSTATE 57014, the connection kept) before the client gives up on a silent one.
     */
    private void timeouts() {
      primaryTimeouts = roleTimeouts(ShardwiseSettings.PRIMARY_PREFIX,
          new NodeTimeouts(2000, 15_000, 10_000, 5000, 60_000, connectionTimeoutMs));
      replicaTimeouts = roleTimeouts(ShardwiseSettings.REPLICA_PREFIX,
          new NodeTimeouts(1000, 15_000, 10_000, 5000, 60_000, replicaConnectionTimeoutMs));
      Set<String> shardIds = new java.util.TreeSet<>();
      for (String key : p.keySet()) {
        java.util.regex.Matcher m = SHARD_ROLE_KEY.matcher(key);
        if (m.matches()) {
          shardIds.add(m.group(1));
        }
      }
      for (String id : shardIds) {
        String prefix = ShardwiseSettings.SHARD_PREFIX + id + ".";
        if (hasAny(prefix + "primary.")) {
          primaryTimeoutsByShard.put(id, roleTimeouts(prefix + "primary.", primaryTimeouts));
        }
        if (hasAny(prefix + "replica.")) {
          replicaTimeoutsByShard.put(id, roleTimeouts(prefix + "replica.", replicaTimeouts));
        }
      }
    }

    private boolean hasAny(String prefix) {
      return p.keySet().stream().anyMatch(k -> k.startsWith(prefix));
    }

    /** One role's deadlines under {@code prefix}, each defaulting to {@code defaults}; checks socket above statement. */
    private NodeTimeouts roleTimeouts(String prefix, NodeTimeouts defaults) {
      NodeTimeouts t = new NodeTimeouts(
          intSetting(prefix + ShardwiseSettings.CONNECT_TIMEOUT_MS, (int) defaults.connectTimeoutMs(), 1000, 600_000),
          intSetting(prefix + ShardwiseSettings.SOCKET_TIMEOUT_MS, (int) defaults.socketTimeoutMs(), 0, 86_400_000),
          intSetting(prefix + ShardwiseSettings.STATEMENT_TIMEOUT_MS, (int) defaults.statementTimeoutMs(), 0,
              86_400_000),
          intSetting(prefix + ShardwiseSettings.LOCK_TIMEOUT_MS, (int) defaults.lockTimeoutMs(), 0, 86_400_000),
          intSetting(prefix + ShardwiseSettings.IDLE_IN_TRANSACTION_TIMEOUT_MS,
              (int) defaults.idleInTransactionTimeoutMs(), 0, 86_400_000),
          prefix.startsWith(ShardwiseSettings.SHARD_PREFIX)
              ? intSetting(prefix + ShardwiseSettings.POOL_CONNECTION_TIMEOUT_MS, (int) defaults.connectionTimeoutMs(),
                  250, 600_000)
              : defaults.connectionTimeoutMs());
      if (t.socketTimeoutMs() > 0 && t.socketTimeoutMs() < 1000) {
        problems.add(prefix + ShardwiseSettings.SOCKET_TIMEOUT_MS + " = " + t.socketTimeoutMs() + " is below 1000; the"
            + " driver counts whole seconds (use 0 for none)");
      }
      if (t.socketTimeoutMs() > 0 && (t.statementTimeoutMs() == 0 || t.socketTimeoutMs() <= t.statementTimeoutMs())) {
        problems.add(prefix + ShardwiseSettings.SOCKET_TIMEOUT_MS + " = " + t.socketTimeoutMs() + " is not above "
            + prefix + ShardwiseSettings.STATEMENT_TIMEOUT_MS + " = " + t.statementTimeoutMs() + ": a slow statement on a"
            + " live server would lose its connection instead of being cancelled. Raise the socket timeout (a second or"
            + " more above the statement timeout) or lower the statement timeout");
      }
      return t;
    }

    private void schemaAction() {
      String action = p.getOrDefault(ShardwiseSettings.SCHEMA_ACTION, "none").toLowerCase(Locale.ROOT);
      switch (action) {
        case "none" -> schemaAction = SchemaAction.NONE;
        case "create", "drop-and-create" -> schemaAction = SchemaAction.CREATE;
        case "update" -> schemaAction = SchemaAction.UPDATE;
        case "validate" -> schemaAction = SchemaAction.VALIDATE;
        default -> problems.add(ShardwiseSettings.SCHEMA_ACTION + " = '" + action
            + "' is not one of none, create, drop-and-create, update, validate");
      }
      for (String hibernateAction : List.of("hibernate.hbm2ddl.auto",
          "jakarta.persistence.schema-generation.database.action")) {
        Object value = settings.get(hibernateAction);
        if (value != null && !value.toString().isBlank() && !value.toString().trim().equalsIgnoreCase("none")) {
          problems.add(hibernateAction + " = '" + value + "' would reach only one shard (Hibernate's schema tools"
              + " see one connection). Remove it and set " + ShardwiseSettings.SCHEMA_ACTION + " = " + value
              + " to run it on every shard");
        }
      }
    }

    private void migrations() {
      List<String> locations = Arrays.stream(p.getOrDefault(ShardwiseSettings.MIGRATIONS_LOCATIONS,
          "classpath:db/migration").split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
      if (locations.isEmpty()) {
        problems.add(ShardwiseSettings.MIGRATIONS_LOCATIONS + " is empty; name where the scripts are, e.g."
            + " classpath:db/migration or filesystem:/opt/app/migrations");
      }
      String gateText = p.getOrDefault(ShardwiseSettings.MIGRATIONS_GATE, "refuse");
      VersionGate gate = switch (gateText.toLowerCase(Locale.ROOT)) {
        case "refuse" -> VersionGate.REFUSE;
        case "mark-unavailable" -> VersionGate.MARK_UNAVAILABLE;
        case "off" -> VersionGate.OFF;
        default -> {
          problems.add(ShardwiseSettings.MIGRATIONS_GATE + " = '" + gateText + "' is not refuse (the default: do not"
              + " start when shards are at different schema versions), mark-unavailable or off");
          yield VersionGate.REFUSE;
        }
      };
      String table = p.getOrDefault(ShardwiseSettings.MIGRATIONS_TABLE, "flyway_schema_history");
      if (!table.matches("[a-z_][a-z0-9_$]{0,62}")) {
        problems.add(ShardwiseSettings.MIGRATIONS_TABLE + " = '" + table + "' is not a plain lower-case table name"
            + " (letters, digits, _ and $; at most 63 characters); Flyway creates it in the connection's schema");
      }
      String baseline = p.get(ShardwiseSettings.MIGRATIONS_BASELINE_VERSION);
      if (baseline != null && !baseline.matches("\\d+([._]\\d+)*")) {
        problems.add(ShardwiseSettings.MIGRATIONS_BASELINE_VERSION + " = '" + baseline + "' is not a Flyway version"
            + " (digits separated by . or _, e.g. 1 or 2.1)");
      }
      migrations = new MigrationSettings(locations, gate, table, baseline);
    }

    private ShardMap staticMap(int buckets) {
      String list = p.get(ShardwiseSettings.SHARDS);
      if (list == null || list.isBlank()) {
        List<String> stray = p.keySet().stream().filter(k -> k.startsWith(ShardwiseSettings.SHARD_PREFIX)).toList();
        if (!stray.isEmpty()) {
          problems.add(stray + " are set but " + ShardwiseSettings.SHARDS + " does not list the shard ids");
        }
        return null;
      }
      int before = problems.size();
      List<String> ids = Arrays.stream(list.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
      List<ShardDescriptor> shards = new ArrayList<>();
      for (String id : ids) {
        String prefix = ShardwiseSettings.SHARD_PREFIX + id + ".";
        String url = p.get(prefix + "url");
        if (url == null || url.isBlank()) {
          problems.add("shard '" + id + "' has no " + prefix + "url (the JDBC URL of its primary)");
          continue;
        }
        if (!url.startsWith("jdbc:postgresql:")) {
          problems.add(prefix + "url = '" + JdbcUrls.redact(url)
              + "' is not a PostgreSQL JDBC URL (jdbc:postgresql://host:port/db)");
        }
        String replicas = p.getOrDefault(prefix + "replicas", "");
        List<String> replicaUrls = Arrays.stream(replicas.split(",")).map(String::trim).filter(s -> !s.isEmpty())
            .toList();
        for (String replicaUrl : replicaUrls) {
          if (!replicaUrl.startsWith("jdbc:postgresql:")) {
            problems.add(prefix + "replicas lists '" + JdbcUrls.redact(replicaUrl)
                + "', which is not a PostgreSQL JDBC URL (jdbc:postgresql://host:port/db)");
          }
        }
        int weight = intSetting(prefix + "weight", 1, 1, 1_000_000);
        ShardState state = ShardState.ACTIVE;
        String stateText = p.get(prefix + "state");
        if (stateText != null) {
          try {
            state = ShardState.valueOf(stateText.toUpperCase(Locale.ROOT));
          } catch (IllegalArgumentException e) {
            problems.add(prefix + "state = '" + stateText + "' is not one of " + Arrays.toString(ShardState.values()));
          }
        }
        try {
          shards.add(new ShardDescriptor(id, url, replicaUrls, weight, state));
        } catch (IllegalArgumentException e) {
          problems.add(e.getMessage());
        }
      }
      Map<String, String> unlisted = new TreeMap<>();
      for (String key : p.keySet()) {
        if (key.startsWith(ShardwiseSettings.SHARD_PREFIX)) {
          String id = shardIdOf(key);
          if (!ids.contains(id)) {
            unlisted.put(key, id);
          }
        }
      }
      unlisted.forEach((key, id) -> problems.add(key + " names shard '" + id + "', which " + ShardwiseSettings.SHARDS
          + " = '" + list + "' does not list"));
      if (problems.size() > before || shards.isEmpty()) {
        return null;
      }
      try {
        return ShardMap.evenlyAssigned(1, shards, buckets);
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
        return null;
      }
    }

    /** A key under shardwise. that no component reads is a typo until proven otherwise. */
    /** The registry object itself (the settings map carries it as it was given), checked to be Micrometer's. */
    private void hotspots() {
      int sample = intSetting(ShardwiseSettings.HOTSPOTS_SAMPLE, 64, 1, 1 << 16);
      if (Integer.bitCount(sample) != 1) {
        problems.add(ShardwiseSettings.HOTSPOTS_SAMPLE + " = " + sample + " is not a power of two; use "
            + Integer.highestOneBit(sample) + " or " + (Integer.highestOneBit(sample) << 1));
      }
      String check = p.getOrDefault(ShardwiseSettings.HOTSPOTS_KEY_CHECK, "off").toLowerCase(Locale.ROOT);
      if (!check.equals("off") && !check.equals("startup")) {
        problems.add(ShardwiseSettings.HOTSPOTS_KEY_CHECK + " = '" + check + "' is not off or startup");
      }
      hotspots = new Hotspots(booleanSetting(ShardwiseSettings.HOTSPOTS_ENABLED, true), sample,
          check.equals("startup"));
    }

    private Object meterRegistry() {
      return registry(ShardwiseSettings.METER_REGISTRY, io.shardwise.hibernate.metrics.internal.Metrics::isMeterRegistry,
          io.shardwise.hibernate.metrics.internal.Metrics.METER_REGISTRY_TYPE, "meterRegistry");
    }

    private Object observationRegistry() {
      return registry(ShardwiseSettings.OBSERVATION_REGISTRY,
          io.shardwise.hibernate.metrics.internal.Observations::isObservationRegistry,
          io.shardwise.hibernate.metrics.internal.Observations.OBSERVATION_REGISTRY_TYPE, "observationRegistry");
    }

    private Object registry(String key, java.util.function.Predicate<Object> isOfType, String type, String builderMethod) {
      Object registry = settings.get(key);
      if (registry == null || registry instanceof String text && text.isBlank()) {
        return null;
      }
      if (!isOfType.test(registry)) {
        problems.add(key + " is a " + registry.getClass().getName() + ", not a " + type + ": give the registry object"
            + " itself (Shardwise.configure()." + builderMethod + "(registry)), not its name");
        return null;
      }
      return registry;
    }

    private void rejectUnknownKeys() {
      for (String key : p.keySet()) {
        if (!isKnown(key)) {
          String suggestion = suggestionFor(key);
          problems.add(key + " is not a Shardwise setting" + (suggestion == null ? "" : "; did you mean "
              + suggestion + "?") + " (docs/routing.md lists every setting)");
        }
      }
    }

    private int intSetting(String key, int defaultValue, int min, int max) {
      String text = p.get(key);
      if (text == null || text.isBlank()) {
        return defaultValue;
      }
      try {
        int value = Integer.parseInt(text.trim());
        if (value < min || value > max) {
          problems.add(key + " = " + value + " is outside " + min + ".." + max);
        }
        return value;
      } catch (NumberFormatException e) {
        problems.add(key + " = '" + text + "' is not a whole number");
        return defaultValue;
      }
    }

    private boolean booleanSetting(String key, boolean defaultValue) {
      String text = p.get(key);
      if (text == null || text.isBlank()) {
        return defaultValue;
      }
      return switch (text.trim().toLowerCase(Locale.ROOT)) {
        case "true" -> true;
        case "false" -> false;
        default -> {
          problems.add(key + " = '" + text + "' is not true or false");
          yield defaultValue;
        }
      };
    }

    private String firstNonBlank(String... keys) {
      for (String key : keys) {
        Object value = settings.get(key);
        if (value != null && !value.toString().isBlank()) {
          return value.toString().trim();
        }
      }
      return null;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Known keys and did-you-mean
  // ---------------------------------------------------------------------------------------------

  /** The shard id in a {@code shardwise.shard.<id>.<attribute>} or {@code shardwise.shard.<id>.<role>.<name>} key. */
  static String shardIdOf(String key) {
    java.util.regex.Matcher m = SHARD_ROLE_KEY.matcher(key);
    if (m.matches()) {
      return m.group(1);
    }
    String rest = key.substring(ShardwiseSettings.SHARD_PREFIX.length());
    int dot = rest.lastIndexOf('.');
    return dot > 0 ? rest.substring(0, dot) : rest;
  }

  private static List<String> knownKeys() {
    List<String> keys = new ArrayList<>(List.of(
        ShardwiseSettings.SHARDS, ShardwiseSettings.BUCKETS, ShardwiseSettings.STRATEGY, ShardwiseSettings.METER_REGISTRY,
        ShardwiseSettings.OBSERVATION_REGISTRY,
        ShardwiseSettings.RING_VNODES, ShardwiseSettings.FALLBACK, ShardwiseSettings.CONTROL_URL,
        ShardwiseSettings.CONTROL_INITIALIZE, ShardwiseSettings.DDL, ShardwiseSettings.USER, ShardwiseSettings.PASSWORD,
        ShardwiseSettings.POOL_SIZE, ShardwiseSettings.POOL_MIN_IDLE, ShardwiseSettings.CONNECTION_TIMEOUT,
        ShardwiseSettings.SCHEMA_ACTION, ShardwiseSettings.MIGRATIONS_LOCATIONS, ShardwiseSettings.MIGRATIONS_GATE,
        ShardwiseSettings.MIGRATIONS_TABLE, ShardwiseSettings.MIGRATIONS_BASELINE_VERSION,
        ShardwiseSettings.REPLICA_BALANCE, ShardwiseSettings.REPLICA_MAX_LAG_MS,
        ShardwiseSettings.REPLICA_MAX_LAG_BYTES, ShardwiseSettings.REPLICA_MONITOR_INTERVAL,
        ShardwiseSettings.REPLICA_CONNECTION_TIMEOUT, ShardwiseSettings.RYW_SECRET, ShardwiseSettings.RYW_ACCEPTED_SECRET,
        ShardwiseSettings.RYW_PIN_TTL,
        ShardwiseSettings.TX_ENABLED, ShardwiseSettings.TX_RECOVERY_INTERVAL, ShardwiseSettings.TX_IN_DOUBT_GRACE,
        ShardwiseSettings.TX_LOG_POOL_SIZE, ShardwiseSettings.SAGA_MAX_ATTEMPTS, ShardwiseSettings.SAGA_BACKOFF,
        ShardwiseSettings.SCATTER_THREADS, ShardwiseSettings.SCATTER_MAX_ROWS, ShardwiseSettings.SCATTER_FETCH_SIZE, ShardwiseSettings.CONTROL_VERSION_CHECK_INTERVAL,
        ShardwiseSettings.CONTROL_ROUTER_LEASE,
        ShardwiseSettings.RESHARD_PAUSE_LIMIT, ShardwiseSettings.RESHARD_MAX_SWITCH_LAG,
        ShardwiseSettings.RESHARD_VERIFY_THREADS, ShardwiseSettings.RESHARD_DELETE_BATCH,
        ShardwiseSettings.RESHARD_FENCE_GRACE, ShardwiseSettings.RESHARD_STATEMENT_TIMEOUT,
        ShardwiseSettings.CONTROL_LOCK_TIMEOUT, ShardwiseSettings.CONTROL_STATEMENT_TIMEOUT,
        ShardwiseSettings.BREAKER_FAILURE_THRESHOLD,
        ShardwiseSettings.BULKHEAD_MAX_CONCURRENT,
        ShardwiseSettings.BREAKER_OPEN_MS, ShardwiseSettings.IDS_DEFAULT, ShardwiseSettings.IDS_GENERATED,
        ShardwiseSettings.HOTSPOTS_ENABLED,
        ShardwiseSettings.HOTSPOTS_SAMPLE, ShardwiseSettings.HOTSPOTS_KEY_CHECK));
    for (String name : TIMEOUT_NAMES) {
      keys.add(ShardwiseSettings.PRIMARY_PREFIX + name);
      keys.add(ShardwiseSettings.REPLICA_PREFIX + name);
    }
    keys.addAll(SnowflakeSettings.KEYS);
    return keys;
  }

  /**
   * Whether Shardwise reads {@code key}: a fixed key, {@code shardwise.shard.<id>.url|replicas|weight|state},
   * {@code shardwise.range.<shardId>} or {@code shardwise.directory.<key>}.
   */
  static boolean isKnown(String key) {
    if (KNOWN_KEYS.contains(key)) {
      return true;
    }
    for (String prefix : List.of(ShardwiseSettings.RANGE_PREFIX, ShardwiseSettings.DIRECTORY_PREFIX)) {
      if (key.startsWith(prefix)) {
        return key.length() > prefix.length();
      }
    }
    if (key.startsWith(ShardwiseSettings.SHARD_PREFIX)) {
      java.util.regex.Matcher m = SHARD_ROLE_KEY.matcher(key);
      if (m.matches()) {
        return TIMEOUT_NAMES.contains(m.group(3)) || m.group(3).equals(ShardwiseSettings.POOL_CONNECTION_TIMEOUT_MS);
      }
      int dot = key.lastIndexOf('.');
      return dot > ShardwiseSettings.SHARD_PREFIX.length() && SHARD_ATTRIBUTES.contains(key.substring(dot + 1));
    }
    return false;
  }

  /**
   * The known key nearest to {@code key} by edit distance, if near enough to be a typo of it. Pattern
   * keys are compared with their variable part taken from {@code key} itself, so that
   * {@code shardwise.shard.s0.uri} suggests {@code shardwise.shard.s0.url} and
   * {@code shardwise.ranges.s0} suggests {@code shardwise.range.s0}.
   */
  static String suggestionFor(String key) {
    List<String> candidates = new ArrayList<>(KNOWN_KEYS);
    String[] segments = key.split("\\.", 3);
    if (segments.length == 3) {
      String rest = segments[2];
      candidates.add(ShardwiseSettings.RANGE_PREFIX + rest);
      candidates.add(ShardwiseSettings.DIRECTORY_PREFIX + rest);
      int dot = rest.lastIndexOf('.');
      String id = dot > 0 ? rest.substring(0, dot) : rest;
      for (String attribute : SHARD_ATTRIBUTES) {
        candidates.add(ShardwiseSettings.SHARD_PREFIX + id + "." + attribute);
      }
      java.util.regex.Matcher m = SHARD_ROLE_KEY.matcher(key);
      if (m.matches()) {
        for (String name : TIMEOUT_NAMES) {
          candidates.add(ShardwiseSettings.SHARD_PREFIX + m.group(1) + "." + m.group(2) + "." + name);
        }
        candidates.add(ShardwiseSettings.SHARD_PREFIX + m.group(1) + "." + m.group(2) + "."
            + ShardwiseSettings.POOL_CONNECTION_TIMEOUT_MS);
      }
    }
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String candidate : candidates) {
      int distance = editDistance(key, candidate);
      if (distance < bestDistance || distance == bestDistance && candidate.compareTo(best) < 0) {
        best = candidate;
        bestDistance = distance;
      }
    }
    if (bestDistance > 0 && bestDistance <= Math.max(2, key.length() / 6)) {
      return best;
    }
    // not a typo but the wrong family, e.g. shardwise.transactions.log_pool_size: the one key with that last word
    String lastWord = key.substring(key.lastIndexOf('.') + 1);
    List<String> sameLastWord = KNOWN_KEYS.stream().filter(k -> k.endsWith("." + lastWord)).toList();
    return sameLastWord.size() == 1 ? sameLastWord.get(0) : null;
  }

  /** Levenshtein distance: insertions, deletions and substitutions of one character each cost 1. */
  static int editDistance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
