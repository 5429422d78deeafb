package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.id.SnowflakeGenerator;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.routing.RangeStrategy;
import io.shardwise.hibernate.routing.ShardingStrategies;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Configuration is validated before anything connects; every message names the unit and the property. */
class ShardwiseConfigTest {

  private static Map<String, Object> valid() {
    Map<String, Object> p = new HashMap<>();
    p.put("hibernate.persistenceUnitName", "shop");
    p.put("shardwise.shards", "a,b");
    p.put("shardwise.shard.a.url", "jdbc:postgresql://db-a/shop");
    p.put("shardwise.shard.b.url", "jdbc:postgresql://db-b/shop");
    p.put("shardwise.shard.b.weight", "3");
    return p;
  }

  @Test
  void aValidStaticMapHonoursWeights() {
    ShardwiseConfig config = ShardwiseConfig.from(valid());
    assertEquals("shop", config.unitName());
    long ownedByB = 0;
    for (int bucket = 0; bucket < config.staticMap().bucketCount(); bucket++) {
      ownedByB += config.staticMap().ownerOf(bucket).equals("b") ? 1 : 0;
    }
    assertEquals(768, ownedByB, "weight 3 of 4 owns three quarters of 1024 buckets");
  }

  @Test
  void everyProblemIsListedAtOnce() {
    Map<String, Object> p = valid();
    p.remove("shardwise.shard.b.url");
    p.put("shardwise.shard.a.url", "jdbc:mysql://db-a/shop");
    p.put("shardwise.shard.c.url", "jdbc:postgresql://db-c/shop");
    p.put("shardwise.pool.size", "zero");
    p.put("shardwise.schema.action", "recreate");
    p.put("hibernate.hbm2ddl.auto", "update");

    ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p));
    String m = e.getMessage();
    assertTrue(m.startsWith("Shardwise configuration of persistence unit 'shop' is invalid"), m);
    assertTrue(m.contains("shard 'b' has no shardwise.shard.b.url"), m);
    assertTrue(m.contains("shardwise.shard.a.url = 'jdbc:mysql://db-a/shop' is not a PostgreSQL JDBC URL"), m);
    assertTrue(m.contains("shardwise.shard.c.url names shard 'c', which shardwise.shards = 'a,b' does not list"), m);
    assertTrue(m.contains("shardwise.pool.size = 'zero' is not a whole number"), m);
    assertTrue(m.contains("shardwise.schema.action = 'recreate'"), m);
    assertTrue(m.contains("hibernate.hbm2ddl.auto = 'update' would reach only one shard"), m);
  }

  @Test
  void theMeterRegistrySettingTakesTheRegistryObjectNotItsName() {
    assertNull(ShardwiseConfig.from(valid()).meterRegistry(), "no registry: no metrics");
    Map<String, Object> p = valid();
    io.micrometer.core.instrument.MeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    p.put(ShardwiseSettings.METER_REGISTRY, registry);
    assertSame(registry, ShardwiseConfig.from(p).meterRegistry());
    p.put(ShardwiseSettings.METER_REGISTRY, "meterRegistry");
    ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p));
    assertTrue(e.getMessage().contains("persistence unit 'shop'") && e.getMessage().contains(
        "shardwise.metrics.registry is a java.lang.String, not a io.micrometer.core.instrument.MeterRegistry: give the"
            + " registry object itself (Shardwise.configure().meterRegistry(registry)), not its name"), e.getMessage());
  }

  @Test
  void theTransactionLogPoolIsSizedBySettingAndValidated() {
    assertEquals(3, ShardwiseConfig.from(valid()).transactions().logPoolSize(), "the default");
    Map<String, Object> p = valid();
    p.put(ShardwiseSettings.TX_LOG_POOL_SIZE, "8");
    assertEquals(8, ShardwiseConfig.from(p).transactions().logPoolSize());
    p.put(ShardwiseSettings.TX_LOG_POOL_SIZE, "0");
    ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p));
    assertTrue(e.getMessage().contains("shardwise.tx.log_pool_size = 0 is outside 1..100"), e.getMessage());
  }

  @Test
  void hedgedReadsAreOffByDefaultAndTheirSettingsAreChecked() {
    ShardwiseConfig.ReadHedge defaults = ShardwiseConfig.from(valid()).readHedge();
    assertEquals(new ShardwiseConfig.ReadHedge(false, 95, 2.0, 20, 1000), defaults);
    Map<String, Object> p = valid();
    p.put(ShardwiseSettings.READ_HEDGE_ENABLED, "true");
    p.put(ShardwiseSettings.READ_HEDGE_MULTIPLIER, "1.5");
    assertEquals(new ShardwiseConfig.ReadHedge(true, 95, 1.5, 20, 1000), ShardwiseConfig.from(p).readHedge());
    p.put(ShardwiseSettings.READ_HEDGE_FLOOR_MS, "500");
    p.put(ShardwiseSettings.READ_HEDGE_CEILING_MS, "100");
    p.put(ShardwiseSettings.READ_HEDGE_PERCENTILE, "100");
    String m = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p)).getMessage();
    assertTrue(m.contains("shardwise.read.hedge.floor_ms = 500 is above shardwise.read.hedge.ceiling_ms = 100"), m);
    assertTrue(m.contains("shardwise.read.hedge.percentile = 100 is outside 50..99"), m);
  }

  @Test
  void ownDdlIsOptInAndItsValueIsChecked() {
    Map<String, Object> p = valid();
    p.put(ShardwiseSettings.DDL, "validate");
    assertFalse(ShardwiseConfig.from(p).ddlCreate(), "validate only checks the catalog");
    assertFalse(ShardwiseConfig.from(p).snowflake().createLeaseTable());
    p.put(ShardwiseSettings.DDL, "CREATE");
    assertTrue(ShardwiseConfig.from(p).ddlCreate());
    assertTrue(ShardwiseConfig.from(p).snowflake().createLeaseTable());
    p.put(ShardwiseSettings.DDL, "update");
    ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p));
    assertTrue(e.getMessage().contains("shardwise.ddl = 'update' is not validate (the default"), e.getMessage());
    p.remove(ShardwiseSettings.DDL);
    p.put("shardwise.dll", "create");
    e = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p));
    assertTrue(e.getMessage().contains("shardwise.dll is not a Shardwise setting; did you mean shardwise.ddl"),
        e.getMessage());
  }

  @Test
  void noShardsAtAllSaysWhatToSet() {
    ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class,
        () -> ShardwiseConfig.from(Map.of("hibernate.persistenceUnitName", "shop")));
    assertTrue(e.getMessage().contains("set shardwise.shards"), e.getMessage());
  }

  @Test
  void everySettingIsTypedWithItsDefault() {
    ShardwiseConfig config = ShardwiseConfig.from(valid());
    assertEquals(0, config.poolMinIdle(), "pools open on first use");
    assertEquals(8, config.scatter().threadsFor(4));
    assertEquals(4, config.scatter().threadsFor(1));
    assertEquals(16, config.scatter().threadsFor(100), "past 8 shards the fan-out does not grow with the shards");
    assertEquals(16, config.scatter().threadsFor(8));
    assertEquals(new ShardwiseConfig.Transactions(true, 10_000, 60_000, 3, 5, 50), config.transactions());
    assertEquals(ShardingStrategies.Settings.DEFAULT, config.strategy());
    assertNull(config.snowflake().workerId());
    assertFalse(config.snowflake().ticking());
    assertFalse(config.snowflakeIdsByDefault(), "ids are left as mapped unless shardwise.ids.default says otherwise");
  }

  @Test
  void hotspotSettingsHaveDefaultsAndRefuseWhatCannotWork() {
    ShardwiseConfig.Hotspots defaults = ShardwiseConfig.from(valid()).hotspots();
    assertEquals(new ShardwiseConfig.Hotspots(true, 64, false), defaults);
    Map<String, Object> p = valid();
    p.put(ShardwiseSettings.HOTSPOTS_ENABLED, "false");
    p.put(ShardwiseSettings.HOTSPOTS_SAMPLE, "16");
    p.put(ShardwiseSettings.HOTSPOTS_KEY_CHECK, "Startup");
    assertEquals(new ShardwiseConfig.Hotspots(false, 16, true), ShardwiseConfig.from(p).hotspots());
    p.put(ShardwiseSettings.HOTSPOTS_SAMPLE, "48");
    p.put(ShardwiseSettings.HOTSPOTS_KEY_CHECK, "always");
    p.put("shardwise.hotspot.sample", "8");
    String m = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p)).getMessage();
    assertTrue(m.contains("shardwise.hotspots.sample = 48 is not a power of two; use 32 or 64"), m);
    assertTrue(m.contains("shardwise.hotspots.key_check = 'always' is not off or startup"), m);
    assertTrue(m.contains("shardwise.hotspot.sample is not a Shardwise setting; did you mean shardwise.hotspots.sample?"),
        m);
  }

  @Test
  void theDefaultIdStrategyIsNoneOrSnowflakeAndATypoIsNamed() {
    Map<String, Object> p = valid();
    p.put("shardwise.ids.default", "Snowflake");
    assertTrue(ShardwiseConfig.from(p).snowflakeIdsByDefault());
    p.put("shardwise.ids.default", "uuid");
    p.put("shardwise.id.default", "snowflake");
    String m = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p)).getMessage();
    assertTrue(m.contains("shardwise.ids.default = 'uuid' is not none or snowflake"), m);
    assertTrue(m.contains("shardwise.id.default is not a Shardwise setting; did you mean shardwise.ids.default?"), m);
  }

  @Test
  void migrationSettingsHaveDefaultsAndEveryBadValueIsNamed() {
    ShardwiseConfig.MigrationSettings defaults = ShardwiseConfig.from(valid()).migrations();
    assertEquals(List.of("classpath:db/migration"), defaults.locations());
    assertEquals(io.shardwise.hibernate.migrations.VersionGate.REFUSE, defaults.gate());
    assertEquals("flyway_schema_history", defaults.table());
    Map<String, Object> p = valid();
    p.put("shardwise.migrations.gate", "mark-unavailable");
    p.put("shardwise.migrations.locations", "filesystem:/a, classpath:b");
    assertEquals(io.shardwise.hibernate.migrations.VersionGate.MARK_UNAVAILABLE,
        ShardwiseConfig.from(p).migrations().gate());
    assertEquals(List.of("filesystem:/a", "classpath:b"), ShardwiseConfig.from(p).migrations().locations());
    p.put("shardwise.migrations.gate", "warn");
    p.put("shardwise.migrations.table", "public.history");
    p.put("shardwise.migration.gate", "off");
    p.put("shardwise.migrations.baseline_version", "v1");
    String m = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p)).getMessage();
    assertTrue(m.contains("shardwise.migrations.gate = 'warn' is not refuse"), m);
    assertTrue(m.contains("shardwise.migrations.table = 'public.history' is not a plain lower-case table name"), m);
    assertTrue(m.contains("shardwise.migrations.baseline_version = 'v1' is not a Flyway version"), m);
    assertTrue(m.contains("shardwise.migration.gate is not a Shardwise setting; did you mean"
        + " shardwise.migrations.gate?"), m);
  }

  @Test
  void givenSettingsArriveTyped() {
    Map<String, Object> p = valid();
    p.put("shardwise.pool.min_idle", "2");
    p.put("shardwise.scatter.threads", "12");
    p.put("shardwise.tx.enabled", "FALSE");
    p.put("shardwise.tx.recovery_interval_ms", "500");
    p.put("shardwise.tx.in_doubt_grace_ms", "2000");
    p.put("shardwise.tx.log_pool_size", "5");
    p.put("shardwise.saga.max_attempts", "2");
    p.put("shardwise.saga.backoff_ms", "7");
    p.put("shardwise.strategy", "range");
    p.put("shardwise.range.a", "..100");
    p.put("shardwise.range.b", "100..");
    p.put("shardwise.snowflake.worker_id", "7");
    p.put("shardwise.snowflake.clock", "ticking");
    ShardwiseConfig config = ShardwiseConfig.from(p);
    assertEquals(2, config.poolMinIdle());
    assertEquals(12, config.scatter().threadsFor(2), "a configured count wins over the shard count");
    assertEquals(new ShardwiseConfig.Transactions(false, 500, 2000, 5, 2, 7), config.transactions());
    assertEquals(ShardingStrategies.Kind.RANGE, config.strategy().kind());
    assertEquals(List.of(RangeStrategy.Range.below(100, "a"), RangeStrategy.Range.from(100, "b")),
        config.strategy().ranges());
    assertEquals(7, config.snowflake().workerId());
    assertTrue(config.snowflake().ticking());
  }

  @Test
  void aBadValueOfAnyCapabilityIsListedWithTheOthers() {
    Map<String, Object> p = valid();
    p.put("shardwise.scatter.threads", "lots");
    p.put("shardwise.tx.enabled", "yes");
    p.put("shardwise.tx.log_pool_size", "0");
    p.put("shardwise.saga.backoff_ms", "-1");
    p.put("shardwise.control.initialize", "maybe");
    p.put("shardwise.pool.size", "4");
    p.put("shardwise.pool.min_idle", "5");
    p.put("shardwise.strategy", "ring");
    p.put("shardwise.ring.vnodes", "many");
    p.put("shardwise.snowflake.worker_id", "3");
    p.put("shardwise.snowflake.lease_url", "jdbc:postgresql://control/ids");
    p.put("shardwise.snowflake.lease_ttl_seconds", "forever");

    String m = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p)).getMessage();
    assertTrue(m.startsWith("Shardwise configuration of persistence unit 'shop' is invalid"), m);
    for (String expected : List.of(
        "shardwise.scatter.threads = 'lots' is not a whole number",
        "shardwise.tx.enabled = 'yes' is not true or false",
        "shardwise.tx.log_pool_size = 0 is outside 1..100",
        "shardwise.saga.backoff_ms = -1 is outside 1..3600000",
        "shardwise.control.initialize = 'maybe' is not true or false",
        "shardwise.pool.min_idle = 5 is more than shardwise.pool.size = 4",
        "shardwise.ring.vnodes='many' must be a whole number",
        "both shardwise.snowflake.worker_id = 3 and shardwise.snowflake.lease_url are set; choose one",
        "shardwise.snowflake.lease_ttl_seconds = 'forever' is not a number of seconds")) {
      assertTrue(m.contains(expected), "missing <" + expected + "> in:\n" + m);
    }
    assertEquals(9, m.split("\n  - ").length - 1, "one line per problem:\n" + m);
  }

  @Test
  void strategyEntriesAreCheckedAgainstTheStaticMapAtBuild() {
    Map<String, Object> p = valid();
    p.put("shardwise.strategy", "directory");
    p.put("shardwise.directory.42", "c");
    p.put("shardwise.fallback", "bucket");
    String m = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p)).getMessage();
    assertTrue(m.contains("shardwise.directory.42 names shard 'c', which is not in shard map version 1; use one of"
        + " [a, b]"), m);
  }

  @Test
  void unknownKeysAreRefusedWithTheNearestKnownKey() {
    Map<String, Object> p = valid();
    p.put("shardwise.pool.sise", "5");
    p.put("shardwise.shard.a.uri", "jdbc:postgresql://db-a/shop");
    p.put("shardwise.ranges.a", "0..");
    p.put("shardwise.replica.max_lag", "100");
    p.put("shardwise.transactions.log_pool_size", "4");
    p.put("shardwise.colour", "blue");
    p.put("shardwise.testkit.osUser", "nobody");
    String m = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p)).getMessage();
    for (String expected : List.of(
        "shardwise.pool.sise is not a Shardwise setting; did you mean shardwise.pool.size?",
        "shardwise.shard.a.uri is not a Shardwise setting; did you mean shardwise.shard.a.url?",
        "shardwise.ranges.a is not a Shardwise setting; did you mean shardwise.range.a?",
        "shardwise.replica.max_lag is not a Shardwise setting; did you mean shardwise.replica.max_lag_ms?",
        "shardwise.transactions.log_pool_size is not a Shardwise setting; did you mean shardwise.tx.log_pool_size?",
        "shardwise.colour is not a Shardwise setting (docs/routing.md lists every setting)")) {
      assertTrue(m.contains(expected), "missing <" + expected + "> in:\n" + m);
    }
    assertFalse(m.contains("testkit"), "the test kit's own keys are not Shardwise's to judge:\n" + m);
  }

  @Test
  void urlsInMessagesHaveTheirCredentialsMasked() {
    Map<String, Object> p = valid();
    p.put("shardwise.shard.a.url", "jdbc:mysql://shop:hunter2@db-a/shop?password=hunter2&ssl=true");
    p.put("shardwise.shard.b.replicas", "jdbc:postgresql://db-b2/shop,mysql://db-b3/shop?sslpassword=hunter2");
    p.put("shardwise.control.url", "postgresql://ctl/shardwise?user=app&password=hunter2");
    String m = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p)).getMessage();
    assertTrue(m.contains("'jdbc:mysql://shop:***@db-a/shop?password=***&ssl=true' is not a PostgreSQL JDBC URL"), m);
    assertTrue(m.contains("lists 'mysql://db-b3/shop?sslpassword=***', which is not a PostgreSQL JDBC URL"), m);
    assertTrue(m.contains("shardwise.control.url = 'postgresql://ctl/shardwise?user=app&password=***'"), m);
    assertFalse(m.contains("hunter2"), m);
  }

  @Test
  void everySettingConstantIsKnownAndDocumentedInTheSettingsTable() throws IOException, IllegalAccessException {
    List<String> keys = new ArrayList<>();
    for (Class<?> holder : List.of(ShardwiseSettings.class, SnowflakeGenerator.class)) {
      for (Field field : holder.getFields()) {
        if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class
            && field.get(null).toString().startsWith("shardwise.")) {
          keys.add(field.get(null).toString());
        }
      }
    }
    assertTrue(keys.size() > 35, "found " + keys);
    String table = Files.readString(Path.of("..", "docs", "routing.md"));
    Map<String, Object> settings = valid();
    for (String key : keys) {
      boolean prefix = key.endsWith(".");
      assertTrue(table.contains("`" + key + (prefix ? "" : "`")), key + " is not in docs/routing.md's settings table");
      String suffix = key.equals(ShardwiseSettings.SHARD_PREFIX) ? "a.weight"
          : key.equals(ShardwiseSettings.PRIMARY_PREFIX) || key.equals(ShardwiseSettings.REPLICA_PREFIX)
              ? ShardwiseSettings.LOCK_TIMEOUT_MS : "a";
      settings.put(prefix ? key + suffix : key, "x");
    }
    String m = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(settings)).getMessage();
    assertFalse(m.contains("is not a Shardwise setting"), "every constant is a known key:\n" + m);
  }

  @Test
  void deadlinesHaveDefaultsPerRoleAndOverridesPerShard() {
    ShardwiseConfig defaults = ShardwiseConfig.from(valid());
    assertEquals(new ShardwiseConfig.NodeTimeouts(2000, 15_000, 10_000, 5000, 60_000, 5000), defaults.timeouts("a", false));
    assertEquals(new ShardwiseConfig.NodeTimeouts(1000, 15_000, 10_000, 5000, 60_000, 1000), defaults.timeouts("a", true));

    Map<String, Object> p = valid();
    p.put("shardwise.primary.statement_timeout_ms", "2000");
    p.put("shardwise.primary.socket_timeout_ms", "4000");
    p.put("shardwise.shard.b.primary.statement_timeout_ms", "60000");
    p.put("shardwise.shard.b.primary.socket_timeout_ms", "65000");
    p.put("shardwise.shard.b.primary.connection_timeout_ms", "900");
    p.put("shardwise.shard.a.replica.lock_timeout_ms", "0");
    ShardwiseConfig config = ShardwiseConfig.from(p);
    assertEquals(new ShardwiseConfig.NodeTimeouts(2000, 4000, 2000, 5000, 60_000, 5000), config.timeouts("a", false));
    assertEquals(new ShardwiseConfig.NodeTimeouts(2000, 65_000, 60_000, 5000, 60_000, 900), config.timeouts("b", false));
    assertEquals(0, config.timeouts("a", true).lockTimeoutMs());
    assertEquals(5000, config.timeouts("b", true).lockTimeoutMs());
    assertEquals("-c statement_timeout=2000 -c lock_timeout=5000 -c idle_in_transaction_session_timeout=60000",
        config.timeouts("a", false).serverOptions());
  }

  @Test
  void aSocketTimeoutNotAboveTheStatementTimeoutIsRefused() {
    Map<String, Object> p = valid();
    p.put("shardwise.replica.statement_timeout_ms", "20000");
    p.put("shardwise.shard.c.primary.lock_timeout_ms", "1");
    p.put("shardwise.shard.a.primary.socket_timout_ms", "1");
    String m = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p)).getMessage();
    assertTrue(m.contains("shardwise.replica.socket_timeout_ms = 15000 is not above shardwise.replica.statement_timeout_ms"
        + " = 20000"), m);
    assertTrue(m.contains("shardwise.shard.c.primary.lock_timeout_ms names shard 'c'"), m);
    assertTrue(m.contains("did you mean shardwise.shard.a.primary.socket_timeout_ms?"), m);
  }

  @Test
  void aConfiguredTickingClockWithALeaseIsAContradiction() {
    Map<String, Object> p = valid();
    p.put(SnowflakeGenerator.CLOCK, "ticking");
    p.put(SnowflakeGenerator.LEASE_URL, "jdbc:postgresql://control/ids");
    p.put(SnowflakeGenerator.LEASE_TTL_SECONDS, "45");
    String m = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p)).getMessage();
    assertTrue(m.contains("shardwise.snowflake.clock=ticking cannot be used with shardwise.snowflake.lease_url"), m);

    p.remove(SnowflakeGenerator.CLOCK);
    assertEquals(Duration.ofSeconds(45), ShardwiseConfig.from(p).snowflake().leaseTtl());
  }

  @Test
  void theRouterLeaseDefaultsToTwoMinutesMayBeOffAndMustOutlastThreeVersionChecks() {
    Map<String, Object> p = valid();
    p.put(ShardwiseSettings.CONTROL_URL, "jdbc:postgresql://control/map");
    assertEquals(120_000, ShardwiseConfig.from(p).routerLeaseMs());
    p.put(ShardwiseSettings.CONTROL_ROUTER_LEASE, "0");
    p.put(ShardwiseSettings.CONTROL_VERSION_CHECK_INTERVAL, "3600000");
    assertEquals(0, ShardwiseConfig.from(p).routerLeaseMs(), "off: any check interval goes");
    p.put(ShardwiseSettings.CONTROL_ROUTER_LEASE, "2999");
    p.put(ShardwiseSettings.CONTROL_VERSION_CHECK_INTERVAL, "1000");
    String m = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p)).getMessage();
    assertTrue(m.contains("shardwise.control.router_lease_ms = 2999 is shorter than three"
        + " shardwise.control.version_check_interval_ms (1000 ms each)"), m);
    assertTrue(m.contains("'shop'"), m);
    p.put(ShardwiseSettings.CONTROL_ROUTER_LEASE, "3000");
    assertEquals(3000, ShardwiseConfig.from(p).routerLeaseMs());
    p.put(ShardwiseSettings.CONTROL_ROUTER_LEASE, "-1");
    assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p));
  }
}
