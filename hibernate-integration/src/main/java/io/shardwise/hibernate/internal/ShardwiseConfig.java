package io.shardwise.hibernate.internal;

import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Shardwise's settings, read once from the Hibernate configuration and validated before anything
 * connects. Every message names the persistence unit and the property at fault. Immutable.
 */
public final class ShardwiseConfig {

  /** What to do with the schema on every shard at startup. */
  public enum SchemaAction { NONE, CREATE, UPDATE, VALIDATE }

  private final String unitName;
  private final ShardMap staticMap;
  private final String controlUrl;
  private final boolean controlInitialize;
  private final String user;
  private final String password;
  private final int poolSize;
  private final long connectionTimeoutMs;
  private final SchemaAction schemaAction;
  private final Map<String, String> shardwiseProperties;
  private final boolean leastOutstanding;
  private final long replicaMaxLagMs;
  private final long replicaMaxLagBytes;
  private final long replicaMonitorIntervalMs;
  private final long replicaConnectionTimeoutMs;
  private final byte[] rywSecret;
  private final byte[] rywAcceptedSecret;
  private final long pinTtlMs;
  private final int scatterMaxRows;
  private final int scatterFetchSize;

  private ShardwiseConfig(Builder b) {
    this.scatterMaxRows = b.scatterMaxRows;
    this.scatterFetchSize = b.scatterFetchSize;
    this.leastOutstanding = b.leastOutstanding;
    this.replicaMaxLagMs = b.replicaMaxLagMs;
    this.replicaMaxLagBytes = b.replicaMaxLagBytes;
    this.replicaMonitorIntervalMs = b.replicaMonitorIntervalMs;
    this.replicaConnectionTimeoutMs = b.replicaConnectionTimeoutMs;
    this.rywSecret = b.rywSecret;
    this.rywAcceptedSecret = b.rywAcceptedSecret;
    this.pinTtlMs = b.pinTtlMs;
    this.unitName = b.unitName;
    this.staticMap = b.staticMap;
    this.controlUrl = b.controlUrl;
    this.controlInitialize = b.controlInitialize;
    this.user = b.user;
    this.password = b.password;
    this.poolSize = b.poolSize;
    this.connectionTimeoutMs = b.connectionTimeoutMs;
    this.schemaAction = b.schemaAction;
    this.shardwiseProperties = Map.copyOf(b.shardwiseProperties);
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

  public String user() {
    return user;
  }

  public String password() {
    return password;
  }

  public int poolSize() {
    return poolSize;
  }

  public long connectionTimeoutMs() {
    return connectionTimeoutMs;
  }

  public SchemaAction schemaAction() {
    return schemaAction;
  }

  /** Every {@code shardwise.*} property as a string, for strategy factories. */
  public Map<String, String> shardwiseProperties() {
    return shardwiseProperties;
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

  /** A second secret whose tokens are accepted (secret rotation), or null. */
  public byte[] rywAcceptedSecret() {
    return rywAcceptedSecret == null ? null : rywAcceptedSecret.clone();
  }

  public long pinTtlMs() {
    return pinTtlMs;
  }

  /** The most rows one scatter-gather query may hold, over all its shards. */
  public int scatterMaxRows() {
    return scatterMaxRows;
  }

  /** Rows per round trip of each shard's scatter-gather cursor. */
  public int scatterFetchSize() {
    return scatterFetchSize;
  }

  /** Reads and validates; throws one exception listing every problem. */
  public static ShardwiseConfig from(Map<String, Object> settings) {
    Builder b = new Builder();
    List<String> problems = new ArrayList<>();
    b.unitName = firstNonBlank(settings, "hibernate.persistenceUnitName", "hibernate.session_factory_name");
    if (b.unitName == null) {
      b.unitName = "default";
    }
    for (Map.Entry<String, Object> e : settings.entrySet()) {
      if (e.getKey().startsWith("shardwise.") && e.getValue() != null) {
        b.shardwiseProperties.put(e.getKey(), e.getValue().toString().trim());
      }
    }
    Map<String, String> p = b.shardwiseProperties;

    b.user = firstNonBlank(settings, ShardwiseSettings.USER, "jakarta.persistence.jdbc.user",
        "hibernate.connection.username", "hibernate.connection.user");
    b.password = firstNonBlank(settings, ShardwiseSettings.PASSWORD, "jakarta.persistence.jdbc.password",
        "hibernate.connection.password");
    b.poolSize = intSetting(p, ShardwiseSettings.POOL_SIZE, 10, 1, 1000, problems);
    b.connectionTimeoutMs = intSetting(p, ShardwiseSettings.CONNECTION_TIMEOUT, 5000, 250, 600_000, problems);
    int buckets = intSetting(p, ShardwiseSettings.BUCKETS, ShardMap.DEFAULT_BUCKETS, 1, 1 << 20, problems);

    String balance = p.getOrDefault(ShardwiseSettings.REPLICA_BALANCE, "round_robin").toLowerCase(Locale.ROOT);
    if (!balance.equals("round_robin") && !balance.equals("least_outstanding")) {
      problems.add(ShardwiseSettings.REPLICA_BALANCE + " = '" + balance + "' is not round_robin or least_outstanding");
    }
    b.leastOutstanding = balance.equals("least_outstanding");
    b.replicaMaxLagMs = intSetting(p, ShardwiseSettings.REPLICA_MAX_LAG_MS, 5000, 1, 3_600_000, problems);
    b.replicaMaxLagBytes = intSetting(p, ShardwiseSettings.REPLICA_MAX_LAG_BYTES, 64 << 20, 1, Integer.MAX_VALUE, problems);
    b.replicaMonitorIntervalMs = intSetting(p, ShardwiseSettings.REPLICA_MONITOR_INTERVAL, 200, 10, 60_000, problems);
    b.replicaConnectionTimeoutMs = intSetting(p, ShardwiseSettings.REPLICA_CONNECTION_TIMEOUT, 1000, 250, 60_000, problems);
    b.pinTtlMs = intSetting(p, ShardwiseSettings.RYW_PIN_TTL, 60_000, 1000, 86_400_000, problems);
    b.scatterMaxRows = intSetting(p, ShardwiseSettings.SCATTER_MAX_ROWS, 100_000, 1, 100_000_000, problems);
    b.scatterFetchSize = intSetting(p, ShardwiseSettings.SCATTER_FETCH_SIZE, 1000, 1, 1_000_000, problems);
    String secret = p.get(ShardwiseSettings.RYW_SECRET);
    if (secret != null) {
      if (secret.length() < 32) {
        problems.add(ShardwiseSettings.RYW_SECRET + " is " + secret.length() + " characters; use at least 32 random"
            + " characters (e.g. openssl rand -base64 32), the same on every instance");
      }
      b.rywSecret = secret.getBytes(java.nio.charset.StandardCharsets.UTF_8);
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
      b.rywAcceptedSecret = acceptedSecret.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    String action = p.getOrDefault(ShardwiseSettings.SCHEMA_ACTION, "none").toLowerCase(Locale.ROOT);
    switch (action) {
      case "none" -> b.schemaAction = SchemaAction.NONE;
      case "create", "drop-and-create" -> b.schemaAction = SchemaAction.CREATE;
      case "update" -> b.schemaAction = SchemaAction.UPDATE;
      case "validate" -> b.schemaAction = SchemaAction.VALIDATE;
      default -> problems.add(ShardwiseSettings.SCHEMA_ACTION + " = '" + action
          + "' is not one of none, create, drop-and-create, update, validate");
    }
    for (String hibernateAction : List.of("hibernate.hbm2ddl.auto", "jakarta.persistence.schema-generation.database.action")) {
      Object value = settings.get(hibernateAction);
      if (value != null && !value.toString().isBlank() && !value.toString().trim().equalsIgnoreCase("none")) {
        problems.add(hibernateAction + " = '" + value + "' would reach only one shard (Hibernate's schema tools see"
            + " one connection). Remove it and set " + ShardwiseSettings.SCHEMA_ACTION + " = " + value
            + " to run it on every shard");
      }
    }

    b.controlUrl = p.get(ShardwiseSettings.CONTROL_URL);
    b.controlInitialize = Boolean.parseBoolean(p.getOrDefault(ShardwiseSettings.CONTROL_INITIALIZE, "false"));
    b.staticMap = staticMap(p, buckets, problems);
    if (b.staticMap == null && b.controlUrl == null && problems.isEmpty()) {
      problems.add("no shards configured: set " + ShardwiseSettings.SHARDS + " (with " + ShardwiseSettings.SHARD_PREFIX
          + "<id>.url for each) or " + ShardwiseSettings.CONTROL_URL + " to read the shard map from a control database");
    }
    if (b.controlInitialize && (b.controlUrl == null || b.staticMap == null)) {
      problems.add(ShardwiseSettings.CONTROL_INITIALIZE + " = true needs both " + ShardwiseSettings.CONTROL_URL
          + " and a static map (" + ShardwiseSettings.SHARDS + ") to initialise it from");
    }
    if (!problems.isEmpty()) {
      throw new ShardingConfigurationException("Shardwise configuration of persistence unit '" + b.unitName
          + "' is invalid:\n  - " + String.join("\n  - ", problems));
    }
    return new ShardwiseConfig(b);
  }

  private static ShardMap staticMap(Map<String, String> p, int buckets, List<String> problems) {
    String list = p.get(ShardwiseSettings.SHARDS);
    if (list == null || list.isBlank()) {
      List<String> stray = p.keySet().stream().filter(k -> k.startsWith(ShardwiseSettings.SHARD_PREFIX)).toList();
      if (!stray.isEmpty()) {
        problems.add(stray + " are set but " + ShardwiseSettings.SHARDS + " does not list the shard ids");
      }
      return null;
    }
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
        problems.add(prefix + "url = '" + url + "' is not a PostgreSQL JDBC URL (jdbc:postgresql://host:port/db)");
      }
      String replicas = p.getOrDefault(prefix + "replicas", "");
      List<String> replicaUrls = Arrays.stream(replicas.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
      int weight = intSetting(p, prefix + "weight", 1, 1, 1_000_000, problems);
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
    Map<String, String> unknown = new TreeMap<>();
    for (String key : p.keySet()) {
      if (key.startsWith(ShardwiseSettings.SHARD_PREFIX)) {
        String rest = key.substring(ShardwiseSettings.SHARD_PREFIX.length());
        int dot = rest.lastIndexOf('.');
        String id = dot > 0 ? rest.substring(0, dot) : rest;
        if (!ids.contains(id)) {
          unknown.put(key, id);
        }
      }
    }
    unknown.forEach((key, id) -> problems.add(key + " names shard '" + id + "', which " + ShardwiseSettings.SHARDS
        + " = '" + list + "' does not list"));
    if (!problems.isEmpty() || shards.isEmpty()) {
      return null;
    }
    try {
      return ShardMap.evenlyAssigned(1, shards, buckets);
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
      return null;
    }
  }

  private static int intSetting(Map<String, String> p, String key, int defaultValue, int min, int max,
      List<String> problems) {
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

  private static String firstNonBlank(Map<String, Object> settings, String... keys) {
    for (String key : keys) {
      Object value = settings.get(key);
      if (value != null && !value.toString().isBlank()) {
        return value.toString().trim();
      }
    }
    return null;
  }

  private static final class Builder {
    String unitName;
    ShardMap staticMap;
    String controlUrl;
    boolean controlInitialize;
    String user;
    String password;
    int poolSize;
    long connectionTimeoutMs;
    SchemaAction schemaAction = SchemaAction.NONE;
    boolean leastOutstanding;
    long replicaMaxLagMs;
    long replicaMaxLagBytes;
    long replicaMonitorIntervalMs;
    long replicaConnectionTimeoutMs;
    byte[] rywSecret;
    byte[] rywAcceptedSecret;
    long pinTtlMs;
    int scatterMaxRows;
    int scatterFetchSize;
    final Map<String, String> shardwiseProperties = new LinkedHashMap<>();
  }
}
