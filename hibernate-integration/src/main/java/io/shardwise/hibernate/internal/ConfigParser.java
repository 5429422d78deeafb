package io.shardwise.hibernate.internal;

import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.internal.ShardwiseConfig.ControlTimeouts;
import io.shardwise.hibernate.internal.ShardwiseConfig.Hotspots;
import io.shardwise.hibernate.internal.ShardwiseConfig.MigrationSettings;
import io.shardwise.hibernate.internal.ShardwiseConfig.NodeTimeouts;
import io.shardwise.hibernate.internal.ShardwiseConfig.Resharding;
import io.shardwise.hibernate.internal.ShardwiseConfig.Scatter;
import io.shardwise.hibernate.internal.ShardwiseConfig.SchemaAction;
import io.shardwise.hibernate.internal.ShardwiseConfig.Transactions;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
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
 * The parse of {@link ShardwiseConfig}: one pass over a persistence unit's {@code shardwise.*}
 * settings, capability by capability (pools and credentials, replicas and read-your-writes, schema
 * and migrations, scatter-gather, transactions and sagas, ids, routing and the control database,
 * resharding, deadlines and breakers, metrics, hotspots, the static shard map), each value checked
 * and typed with the default and range of its {@link SettingRegistry} entry. It collects every
 * problem instead of stopping at the first; {@link ShardwiseConfig#from} throws them together.
 * Which keys are known, and the did-you-mean for those that are not, is {@link KnownSettings}'.
 */
final class ConfigParser {
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
  ShardwiseConfig.ReadHedge readHedge;
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

  ConfigParser(Map<String, Object> settings) {
    this.settings = settings;
  }

  void parse() {
    unitName = firstNonBlank("hibernate.persistenceUnitName", "hibernate.session_factory_name");
    unitName = unitName == null ? "default" : unitName;
    for (Map.Entry<String, Object> e : settings.entrySet()) {
      if (e.getKey().startsWith("shardwise.") && e.getValue() != null
          && KnownSettings.FOREIGN_PREFIXES.stream().noneMatch(e.getKey()::startsWith)) {
        p.put(e.getKey(), e.getValue().toString().trim());
      }
    }
    rejectUnknownKeys();

    user = firstNonBlank(ShardwiseSettings.USER, "jakarta.persistence.jdbc.user", "hibernate.connection.username",
        "hibernate.connection.user");
    password = firstNonBlank(ShardwiseSettings.PASSWORD, "jakarta.persistence.jdbc.password",
        "hibernate.connection.password");
    poolSize = intSetting(SettingRegistry.POOL_SIZE);
    poolMinIdle = intSetting(SettingRegistry.POOL_MIN_IDLE);
    if (poolMinIdle > poolSize) {
      problems.add(ShardwiseSettings.POOL_MIN_IDLE + " = " + poolMinIdle + " is more than "
          + ShardwiseSettings.POOL_SIZE + " = " + poolSize + "; a pool cannot keep more idle connections than it"
          + " holds");
    }
    connectionTimeoutMs = intSetting(SettingRegistry.CONNECTION_TIMEOUT);
    int buckets = intSetting(SettingRegistry.BUCKETS);

    String balance = choiceSetting(SettingRegistry.REPLICA_BALANCE);
    if (!balance.equals("round_robin") && !balance.equals("least_outstanding")) {
      problems.add(ShardwiseSettings.REPLICA_BALANCE + " = '" + balance
          + "' is not round_robin or least_outstanding");
    }
    leastOutstanding = balance.equals("least_outstanding");
    replicaMaxLagMs = intSetting(SettingRegistry.REPLICA_MAX_LAG_MS);
    replicaMaxLagBytes = intSetting(SettingRegistry.REPLICA_MAX_LAG_BYTES);
    replicaMonitorIntervalMs = intSetting(SettingRegistry.REPLICA_MONITOR_INTERVAL);
    replicaConnectionTimeoutMs = intSetting(SettingRegistry.REPLICA_CONNECTION_TIMEOUT);
    pinTtlMs = intSetting(SettingRegistry.RYW_PIN_TTL);
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
    readHedge();
    scatter = new Scatter(intSetting(SettingRegistry.SCATTER_THREADS, 0),
        intSetting(SettingRegistry.SCATTER_MAX_ROWS),
        intSetting(SettingRegistry.SCATTER_FETCH_SIZE));
    transactions = new Transactions(
        booleanSetting(SettingRegistry.TX_ENABLED),
        intSetting(SettingRegistry.TX_RECOVERY_INTERVAL),
        intSetting(SettingRegistry.TX_IN_DOUBT_GRACE),
        intSetting(SettingRegistry.TX_LOG_POOL_SIZE),
        intSetting(SettingRegistry.SAGA_MAX_ATTEMPTS),
        intSetting(SettingRegistry.SAGA_BACKOFF));
    String ddl = p.get(ShardwiseSettings.DDL);
    ddlCreate = ShardwiseConfig.parseDdl(ddl != null ? ddl : System.getProperty(ShardwiseSettings.DDL), problems);
    snowflake = SnowflakeSettings.parse(p::get, problems, ddlCreate);
    String ids = choiceSetting(SettingRegistry.IDS_DEFAULT);
    switch (ids) {
      case "none" -> snowflakeIdsByDefault = false;
      case "snowflake" -> snowflakeIdsByDefault = true;
      default -> problems.add(ShardwiseSettings.IDS_DEFAULT + " = '" + ids + "' is not none or snowflake");
    }
    String generated = choiceSetting(SettingRegistry.IDS_GENERATED);
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
    controlInitialize = booleanSetting(SettingRegistry.CONTROL_INITIALIZE);
    controlVersionCheckIntervalMs = intSetting(SettingRegistry.CONTROL_VERSION_CHECK_INTERVAL);
    routerLeaseMs = intSetting(SettingRegistry.CONTROL_ROUTER_LEASE);
    if (controlUrl != null && routerLeaseMs > 0 && routerLeaseMs < 3 * controlVersionCheckIntervalMs) {
      problems.add(ShardwiseSettings.CONTROL_ROUTER_LEASE + " = " + routerLeaseMs + " is shorter than three "
          + ShardwiseSettings.CONTROL_VERSION_CHECK_INTERVAL + " (" + controlVersionCheckIntervalMs + " ms each):"
          + " a router would refuse work after one slow poll. Make the lease at least "
          + 3 * controlVersionCheckIntervalMs + ", or 0 to turn the lease off");
    }
    resharding = new Resharding(
        intSetting(SettingRegistry.RESHARD_PAUSE_LIMIT),
        intSetting(SettingRegistry.RESHARD_MAX_SWITCH_LAG),
        intSetting(SettingRegistry.RESHARD_VERIFY_THREADS),
        intSetting(SettingRegistry.RESHARD_DELETE_BATCH),
        intSetting(SettingRegistry.RESHARD_FENCE_GRACE),
        intSetting(SettingRegistry.RESHARD_STATEMENT_TIMEOUT));
    controlTimeouts = new ControlTimeouts(intSetting(SettingRegistry.CONTROL_LOCK_TIMEOUT),
        intSetting(SettingRegistry.CONTROL_STATEMENT_TIMEOUT));
    timeouts();
    breakerFailureThreshold = intSetting(SettingRegistry.BREAKER_FAILURE_THRESHOLD);
    breakerOpenMs = intSetting(SettingRegistry.BREAKER_OPEN_MS);
    bulkheadMaxConcurrent = intSetting(SettingRegistry.BULKHEAD_MAX_CONCURRENT, 2 * poolSize);
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
    primaryTimeouts = roleTimeouts(ShardwiseSettings.PRIMARY_PREFIX, roleDefaults(ShardwiseSettings.PRIMARY_PREFIX,
        connectionTimeoutMs));
    replicaTimeouts = roleTimeouts(ShardwiseSettings.REPLICA_PREFIX, roleDefaults(ShardwiseSettings.REPLICA_PREFIX,
        replicaConnectionTimeoutMs));
    Set<String> shardIds = new java.util.TreeSet<>();
    for (String key : p.keySet()) {
      java.util.regex.Matcher m = KnownSettings.SHARD_ROLE_KEY.matcher(key);
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

  /** A role's deadlines as the registry defines them, with {@code connectionTimeoutMs} as the checkout timeout. */
  private static NodeTimeouts roleDefaults(String role, long connectionTimeoutMs) {
    return new NodeTimeouts(
        SettingRegistry.get(role + ShardwiseSettings.CONNECT_TIMEOUT_MS).defaultInt(),
        SettingRegistry.get(role + ShardwiseSettings.SOCKET_TIMEOUT_MS).defaultInt(),
        SettingRegistry.get(role + ShardwiseSettings.STATEMENT_TIMEOUT_MS).defaultInt(),
        SettingRegistry.get(role + ShardwiseSettings.LOCK_TIMEOUT_MS).defaultInt(),
        SettingRegistry.get(role + ShardwiseSettings.IDLE_IN_TRANSACTION_TIMEOUT_MS).defaultInt(),
        connectionTimeoutMs);
  }

  /** One deadline under {@code prefix} (a role's, or a shard's role's), within the primary role's range. */
  private long roleTimeout(String prefix, String name, long defaultValue) {
    Setting range = SettingRegistry.get(ShardwiseSettings.PRIMARY_PREFIX + name);
    return intSetting(prefix + name, (int) defaultValue, (int) range.min(), (int) range.max());
  }

  private boolean hasAny(String prefix) {
    return p.keySet().stream().anyMatch(k -> k.startsWith(prefix));
  }

  /** One role's deadlines under {@code prefix}, each defaulting to {@code defaults}; checks socket above statement. */
  private NodeTimeouts roleTimeouts(String prefix, NodeTimeouts defaults) {
    NodeTimeouts t = new NodeTimeouts(
        roleTimeout(prefix, ShardwiseSettings.CONNECT_TIMEOUT_MS, defaults.connectTimeoutMs()),
        roleTimeout(prefix, ShardwiseSettings.SOCKET_TIMEOUT_MS, defaults.socketTimeoutMs()),
        roleTimeout(prefix, ShardwiseSettings.STATEMENT_TIMEOUT_MS, defaults.statementTimeoutMs()),
        roleTimeout(prefix, ShardwiseSettings.LOCK_TIMEOUT_MS, defaults.lockTimeoutMs()),
        roleTimeout(prefix, ShardwiseSettings.IDLE_IN_TRANSACTION_TIMEOUT_MS, defaults.idleInTransactionTimeoutMs()),
        prefix.startsWith(ShardwiseSettings.SHARD_PREFIX)
            ? intSetting(prefix + ShardwiseSettings.POOL_CONNECTION_TIMEOUT_MS, (int) defaults.connectionTimeoutMs(),
                (int) SettingRegistry.CONNECTION_TIMEOUT.min(), (int) SettingRegistry.CONNECTION_TIMEOUT.max())
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
    String action = choiceSetting(SettingRegistry.SCHEMA_ACTION);
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
        SettingRegistry.MIGRATIONS_LOCATIONS.defaultValue()).split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    if (locations.isEmpty()) {
      problems.add(ShardwiseSettings.MIGRATIONS_LOCATIONS + " is empty; name where the scripts are, e.g."
          + " classpath:db/migration or filesystem:/opt/app/migrations");
    }
    String gateText = p.getOrDefault(ShardwiseSettings.MIGRATIONS_GATE, SettingRegistry.MIGRATIONS_GATE.defaultValue());
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
    String table = p.getOrDefault(ShardwiseSettings.MIGRATIONS_TABLE,
        SettingRegistry.MIGRATIONS_TABLE.defaultValue());
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
      int weight = intSetting(prefix + "weight", SettingRegistry.SHARD_WEIGHT);
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
        String id = KnownSettings.shardIdOf(key);
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
    int sample = intSetting(SettingRegistry.HOTSPOTS_SAMPLE);
    if (Integer.bitCount(sample) != 1) {
      problems.add(ShardwiseSettings.HOTSPOTS_SAMPLE + " = " + sample + " is not a power of two; use "
          + Integer.highestOneBit(sample) + " or " + (Integer.highestOneBit(sample) << 1));
    }
    String check = choiceSetting(SettingRegistry.HOTSPOTS_KEY_CHECK);
    if (!check.equals("off") && !check.equals("startup")) {
      problems.add(ShardwiseSettings.HOTSPOTS_KEY_CHECK + " = '" + check + "' is not off or startup");
    }
    hotspots = new Hotspots(booleanSetting(SettingRegistry.HOTSPOTS_ENABLED), sample,
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
      if (!KnownSettings.isKnown(key)) {
        String suggestion = KnownSettings.suggestionFor(key);
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

  private void readHedge() {
    int percentile = intSetting(SettingRegistry.READ_HEDGE_PERCENTILE);
    double multiplier = decimalSetting(SettingRegistry.READ_HEDGE_MULTIPLIER, 1.0, 100.0);
    int floorMs = intSetting(SettingRegistry.READ_HEDGE_FLOOR_MS);
    int ceilingMs = intSetting(SettingRegistry.READ_HEDGE_CEILING_MS);
    if (floorMs > ceilingMs) {
      problems.add(ShardwiseSettings.READ_HEDGE_FLOOR_MS + " = " + floorMs + " is above "
          + ShardwiseSettings.READ_HEDGE_CEILING_MS + " = " + ceilingMs + "; the floor is the shortest hedge delay and"
          + " the ceiling the longest: lower the floor or raise the ceiling");
    }
    readHedge = new ShardwiseConfig.ReadHedge(booleanSetting(SettingRegistry.READ_HEDGE_ENABLED), percentile,
        multiplier, floorMs, ceilingMs);
  }

  private double decimalSetting(Setting setting, double min, double max) {
    String text = p.get(setting.name());
    double defaultValue = Double.parseDouble(setting.defaultValue());
    if (text == null || text.isBlank()) {
      return defaultValue;
    }
    try {
      double value = Double.parseDouble(text.trim());
      if (!(value >= min && value <= max)) {
        problems.add(setting.name() + " = " + text.trim() + " is outside " + min + ".." + max);
      }
      return value;
    } catch (NumberFormatException e) {
      problems.add(setting.name() + " = '" + text + "' is not a number");
      return defaultValue;
    }
  }

  private int intSetting(Setting setting) {
    return intSetting(setting.name(), setting);
  }

  /** {@code key} (one shard's instance of a per-shard {@code setting}) within the setting's range. */
  private int intSetting(String key, Setting setting) {
    return intSetting(key, setting.defaultInt(), (int) setting.min(), (int) setting.max());
  }

  /** A setting whose default the parse computes ({@code computedDefault}), within the setting's range. */
  private int intSetting(Setting setting, int computedDefault) {
    return intSetting(setting.name(), computedDefault, (int) setting.min(), (int) setting.max());
  }

  /** The value of a choice, lower case, or its default; the caller says which values it takes. */
  private String choiceSetting(Setting setting) {
    return p.getOrDefault(setting.name(), setting.defaultValue()).toLowerCase(Locale.ROOT);
  }

  private boolean booleanSetting(Setting setting) {
    return booleanSetting(setting.name(), setting.defaultBoolean());
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
