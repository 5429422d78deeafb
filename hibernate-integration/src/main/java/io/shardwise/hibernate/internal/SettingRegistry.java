package io.shardwise.hibernate.internal;

import static io.shardwise.hibernate.internal.Setting.choice;
import static io.shardwise.hibernate.internal.Setting.flag;
import static io.shardwise.hibernate.internal.Setting.integer;
import static io.shardwise.hibernate.internal.Setting.object;
import static io.shardwise.hibernate.internal.Setting.text;

import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.routing.ConsistentHashRing;
import io.shardwise.hibernate.routing.ShardMap;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every {@code shardwise.*} setting, each defined once: its name, type, range, default, unit, scope
 * and description. {@link ShardwiseConfig} takes defaults and ranges from here, the table of
 * docs/routing.md is rendered from {@link #all()} (checked by {@code SettingRegistryTest}), and the
 * Spring starter's property defaults are checked against it ({@code PropertiesRegistryTest}).
 *
 * <p>To add a setting: its key constant in {@link ShardwiseSettings} (public API), one entry here in
 * the order of the docs' table, its parse in {@code ShardwiseConfig} from the entry, then rewrite
 * the docs' table with {@code SettingRegistryTest} (docs/architecture.md, "Adding a setting").
 */
public final class SettingRegistry {
  private static final String PRIMARY = ShardwiseSettings.PRIMARY_PREFIX;
  private static final String REPLICA = ShardwiseSettings.REPLICA_PREFIX;
  private static final String CONNECT = ShardwiseSettings.CONNECT_TIMEOUT_MS;
  private static final String SOCKET = ShardwiseSettings.SOCKET_TIMEOUT_MS;
  private static final String STATEMENT = ShardwiseSettings.STATEMENT_TIMEOUT_MS;
  private static final String LOCK = ShardwiseSettings.LOCK_TIMEOUT_MS;
  private static final String IDLE = ShardwiseSettings.IDLE_IN_TRANSACTION_TIMEOUT_MS;
  private static final String SOCKET_NOTE = "0 (none) or at least 1000, above the statement timeout";

  static final Setting SHARDS = text(ShardwiseSettings.SHARDS, "list of shard ids", null,
      "the shards of a static shard map, e.g. `s0,s1,s2`");
  static final Setting SHARD_URL = text(ShardwiseSettings.SHARD_PREFIX + "<id>.url", "JDBC URL", null,
      "the shard's primary, `jdbc:postgresql://host:port/db`").shown("— (required per shard)");
  static final Setting SHARD_REPLICAS = text(ShardwiseSettings.SHARD_PREFIX + "<id>.replicas",
      "list of JDBC URLs", null,
      "the shard's streaming replicas, comma-separated ([read/write splitting](read-write-splitting.md))");
  static final Setting SHARD_WEIGHT = integer(ShardwiseSettings.SHARD_PREFIX + "<id>.weight", 1, 1_000_000, 1, null,
      "share of the buckets (ring: of the points) relative to the other shards");
  static final Setting SHARD_STATE = choice(ShardwiseSettings.SHARD_PREFIX + "<id>.state", "ACTIVE",
      "an `OFFLINE` shard is refused at once",
      "ACTIVE", "READ_ONLY", "OFFLINE");
  static final Setting BUCKETS = integer(ShardwiseSettings.BUCKETS, 1, 1 << 20, ShardMap.DEFAULT_BUCKETS, null,
      "logical buckets; fixed for the life of a deployment");
  static final Setting STRATEGY = choice(ShardwiseSettings.STRATEGY, "bucket",
      "how a key picks its shard (table above)",
      "bucket", "ring", "range", "directory");
  static final Setting RING_VNODES = integer(ShardwiseSettings.RING_VNODES,
      1, 1 << 16, ConsistentHashRing.DEFAULT_VNODES_PER_WEIGHT, null,
      "ring: points per unit of weight");
  static final Setting RANGE = text(ShardwiseSettings.RANGE_PREFIX + "<shardId>",
      "ranges `lower..upper`, comma-separated", null,
      "range: the keys of that shard (lower inclusive, upper exclusive; `lower..` and `..upper` are open)");
  static final Setting DIRECTORY = text(ShardwiseSettings.DIRECTORY_PREFIX + "<key>", "shard id", null,
      "directory: the shard of that key");
  static final Setting FALLBACK = choice(ShardwiseSettings.FALLBACK, "none",
      "directory: the strategy for unlisted keys (`none` refuses them)",
      "none", "bucket", "ring");
  static final Setting CONTROL_URL = text(ShardwiseSettings.CONTROL_URL, "JDBC URL", null,
      "control database that holds the shard map (and the transaction logs)");
  static final Setting CONTROL_INITIALIZE = flag(ShardwiseSettings.CONTROL_INITIALIZE, false,
      "seed an empty control database from the static map");
  static final Setting DDL = choice(ShardwiseSettings.DDL, "validate",
      "Shardwise's **own** objects (schema `shardwise`: shard map and transaction log in the control database, "
          + "saga markers and global-index tables on every shard, worker leases): `validate` only reads the catalog "
          + "and fails with `ShardwiseObjectsMissingException`, whose message carries the SQL to run and the database"
          + " to run it in; `create` creates what is missing, which needs `CREATE` on each database "
          + "([security](security.md#privileges-each-feature-needs))",
      "validate", "create");
  static final Setting CONTROL_VERSION_CHECK_INTERVAL = integer(ShardwiseSettings.CONTROL_VERSION_CHECK_INTERVAL,
      1, 86_400_000, 1000, "ms",
      "how often a router compares the stored map version with its own, besides LISTEN/NOTIFY");
  static final Setting CONTROL_LOCK_TIMEOUT = integer(ShardwiseSettings.CONTROL_LOCK_TIMEOUT, 1, 3_600_000, 5000, "ms",
      "`lock_timeout` of every connection Shardwise opens to the control database (shard map reads and changes,"
          + " its DDL, online moves' records) and of an online move's connections to the shards: nothing there waits "
          + "forever behind a lock; a timeout names what holds the lock "
          + "([resharding](resharding.md#timeouts-nothing-waits-forever))");
  static final Setting CONTROL_STATEMENT_TIMEOUT = integer(ShardwiseSettings.CONTROL_STATEMENT_TIMEOUT,
      1, 86_400_000, 30_000, "ms",
      "`statement_timeout` of those control-database connections");
  static final Setting CONTROL_ROUTER_LEASE = integer(ShardwiseSettings.CONTROL_ROUTER_LEASE,
      0, 86_400_000, 120_000, "ms",
      "how long a router routes without confirming its map with the control database; moves wait for the "
          + "acknowledgements of routers whose lease runs; 0 = off "
          + "([resharding](resharding.md#routers-acknowledgements-and-the-lease))");
  static final Setting USER = text(ShardwiseSettings.USER, "text", null,
      "credentials of shard, replica and control connections").shown("`jakarta.persistence.jdbc.user`");
  static final Setting PASSWORD = text(ShardwiseSettings.PASSWORD, "text", null,
      "credentials of shard, replica and control connections").shown("`jakarta.persistence.jdbc.password`");
  static final Setting POOL_SIZE = integer(ShardwiseSettings.POOL_SIZE, 1, 1000, 10, null,
      "HikariCP pool size per shard primary (and per replica)");
  static final Setting POOL_MIN_IDLE = integer(ShardwiseSettings.POOL_MIN_IDLE, 0, 1000, 0, null,
      "connections a pool keeps open while idle; 0 opens them on first use, so a shard that is down at start-up"
          + " delays nobody").note("at most `pool.size`");
  static final Setting CONNECTION_TIMEOUT = integer(ShardwiseSettings.CONNECTION_TIMEOUT, 250, 600_000, 5000, "ms",
      "wait for a shard connection before `ShardUnavailableException`");
  static final Setting PRIMARY_CONNECT_TIMEOUT_MS = roleTimeout(PRIMARY, CONNECT, 1000, 600_000, 2000,
      "pgjdbc `connectTimeout` (whole seconds, rounded up) ([failure handling](failure-handling.md))");
  static final Setting REPLICA_CONNECT_TIMEOUT_MS = roleTimeout(REPLICA, CONNECT, 1000, 600_000, 1000,
      "pgjdbc `connectTimeout` (whole seconds, rounded up) ([failure handling](failure-handling.md))");
  static final Setting PRIMARY_SOCKET_TIMEOUT_MS = roleTimeout(PRIMARY, SOCKET, 0, 86_400_000, 15_000,
      "pgjdbc `socketTimeout`: the longest a read waits on a silent server").note(SOCKET_NOTE);
  static final Setting REPLICA_SOCKET_TIMEOUT_MS = roleTimeout(REPLICA, SOCKET, 0, 86_400_000, 15_000,
      "pgjdbc `socketTimeout`: the longest a read waits on a silent server").note(SOCKET_NOTE);
  static final Setting PRIMARY_STATEMENT_TIMEOUT_MS = roleTimeout(PRIMARY, STATEMENT, 0, 86_400_000, 10_000,
      "server-side `statement_timeout` (0: none)");
  static final Setting REPLICA_STATEMENT_TIMEOUT_MS = roleTimeout(REPLICA, STATEMENT, 0, 86_400_000, 10_000,
      "server-side `statement_timeout` (0: none)");
  static final Setting PRIMARY_LOCK_TIMEOUT_MS = roleTimeout(PRIMARY, LOCK, 0, 86_400_000, 5000,
      "server-side `lock_timeout` (0: none)");
  static final Setting REPLICA_LOCK_TIMEOUT_MS = roleTimeout(REPLICA, LOCK, 0, 86_400_000, 5000,
      "server-side `lock_timeout` (0: none)");
  static final Setting PRIMARY_IDLE_IN_TRANSACTION_TIMEOUT_MS = roleTimeout(PRIMARY, IDLE, 0, 86_400_000, 60_000,
      "server-side `idle_in_transaction_session_timeout` (0: none)");
  static final Setting REPLICA_IDLE_IN_TRANSACTION_TIMEOUT_MS = roleTimeout(REPLICA, IDLE, 0, 86_400_000, 60_000,
      "server-side `idle_in_transaction_session_timeout` (0: none)");
  static final Setting SHARD_PRIMARY = text(ShardwiseSettings.SHARD_PREFIX + "<id>.primary.<name>",
      "as the role's; also `connection_timeout_ms` (250..600000)", null,
      "one shard's own deadlines for its primary, e.g. `shardwise.shard.s2.primary.statement_timeout_ms`")
      .shown("the role's value");
  static final Setting SHARD_REPLICA = text(ShardwiseSettings.SHARD_PREFIX + "<id>.replica.<name>",
      "as the role's; also `connection_timeout_ms` (250..600000)", null,
      "one shard's own deadlines for its replicas, e.g. `shardwise.shard.s2.replica.statement_timeout_ms`")
      .shown("the role's value");
  static final Setting BULKHEAD_MAX_CONCURRENT = integer(ShardwiseSettings.BULKHEAD_MAX_CONCURRENT, 1, 100_000, 0, null,
      "units of work that may hold or wait for one shard primary's connections at once; one more fails at once "
          + "with `ShardSaturatedException` ([failure "
          + "handling](failure-handling.md#bulkheads-a-busy-shard-is-saturated-not-down))").note("at least "
          + "`pool.size`").shown("2 × `pool.size`")
      .note("at least `pool.size`").computed("2 × `pool.size`");
  static final Setting BREAKER_FAILURE_THRESHOLD = integer(ShardwiseSettings.BREAKER_FAILURE_THRESHOLD,
      1, 1000, 3, null,
      "consecutive timeouts or connection failures that open a server's circuit breaker ([failure "
          + "handling](failure-handling.md#circuit-breakers))");
  static final Setting BREAKER_OPEN_MS = integer(ShardwiseSettings.BREAKER_OPEN_MS, 10, 600_000, 1000, "ms",
      "how long an open breaker refuses calls before one probe");
  static final Setting SCHEMA_ACTION = choice(ShardwiseSettings.SCHEMA_ACTION, "none",
      "Hibernate's schema management of the application's tables on **every** shard. **`create` (= "
          + "`drop-and-create`) drops every mapped table, with its rows, on every shard at each start** (logged as a "
          + "warning naming the shards): for tests and demos only, never against data you keep. "
          + "`hibernate.hbm2ddl.auto` is refused: Hibernate's schema tools see one connection, so they would reach "
          + "one shard only. Shardwise's own tables are `shardwise.ddl`'s, not this setting's",
      "none", "create", "drop-and-create", "update", "validate");
  static final Setting MIGRATIONS_LOCATIONS = text(ShardwiseSettings.MIGRATIONS_LOCATIONS,
      "comma-separated Flyway locations (`classpath:db/migration`, `filesystem:/path`)", "classpath:db/migration",
      "where the versioned scripts that `migrate()` / `shardwise migrate` apply to every shard are; a location "
          + "that does not exist is an error ([operations](operations.md#migrations))");
  static final Setting MIGRATIONS_GATE = choice(ShardwiseSettings.MIGRATIONS_GATE, "refuse",
      "what a session factory does when it starts and finds its shards at different schema versions: not start "
          + "(the message lists each shard's version), start with the shards behind refusing their sessions "
          + "(`ShardUnavailableException`) until migrated, or nothing ([operations](operations.md#the-version-gate))",
      "refuse", "mark-unavailable", "off");
  static final Setting MIGRATIONS_TABLE = text(ShardwiseSettings.MIGRATIONS_TABLE,
      "a lower-case table name", "flyway_schema_history",
      "Flyway's history table on every shard, read by the version gate and by status");
  static final Setting MIGRATIONS_BASELINE_VERSION = text(ShardwiseSettings.MIGRATIONS_BASELINE_VERSION,
      "a Flyway version (`1`, `2.1`)", null,
      "for shards whose tables predate migrations (made with `shardwise.schema.action`): the version those "
          + "tables stand for; such a shard is recorded at it and only later scripts run. Unset: a shard with tables "
          + "but no history is refused");
  static final Setting REPLICA_BALANCE = choice(ShardwiseSettings.REPLICA_BALANCE, "round_robin",
      "how reads choose among healthy replicas",
      "round_robin", "least_outstanding");
  static final Setting REPLICA_MAX_LAG_MS = integer(ShardwiseSettings.REPLICA_MAX_LAG_MS, 1, 3_600_000, 5000, "ms",
      "a replica further behind leaves the rotation");
  static final Setting REPLICA_MAX_LAG_BYTES = integer(ShardwiseSettings.REPLICA_MAX_LAG_BYTES,
      1, Integer.MAX_VALUE, 64 << 20, "bytes",
      "the same in WAL bytes").shown("67108864 (64 MiB)");
  static final Setting REPLICA_MONITOR_INTERVAL = integer(ShardwiseSettings.REPLICA_MONITOR_INTERVAL,
      10, 60_000, 200, "ms",
      "how often the monitor checks every replica, and every primary of a shard with replicas or in use ([a "
          + "silent server releases its callers](failure-handling.md#a-frozen-node-releases-its-callers))");
  static final Setting REPLICA_CONNECTION_TIMEOUT = integer(ShardwiseSettings.REPLICA_CONNECTION_TIMEOUT,
      250, 60_000, 1000, "ms",
      "wait for a replica connection before reading from the primary; also how long a monitor check waits for a"
          + " server's answer before it finds the server silent");
  static final Setting READ_HEDGE_ENABLED = flag(ShardwiseSettings.READ_HEDGE_ENABLED, false,
      "hedge read-only callback units of work still running on a replica after the hedge delay: they run once more"
          + " on another replica or the primary, the first answer wins ([hedged replica reads](failure-handling.md"
          + "#hedged-replica-reads)); `ShardRoute.hedged(boolean)` per route");
  static final Setting READ_HEDGE_PERCENTILE = integer(ShardwiseSettings.READ_HEDGE_PERCENTILE, 50, 99, 95, null,
      "the percentile of a replica's recent units the hedge delay starts from");
  static final Setting READ_HEDGE_MULTIPLIER = text(ShardwiseSettings.READ_HEDGE_MULTIPLIER, "decimal 1..100", "2",
      "what that percentile is multiplied by");
  static final Setting READ_HEDGE_FLOOR_MS = integer(ShardwiseSettings.READ_HEDGE_FLOOR_MS, 1, 600_000, 20, "ms",
      "the shortest hedge delay").note("at most `ceiling_ms`");
  static final Setting READ_HEDGE_CEILING_MS = integer(ShardwiseSettings.READ_HEDGE_CEILING_MS, 1, 600_000, 1000,
      "ms", "the longest hedge delay, and the delay until a replica has 20 units");
  static final Setting RYW_SECRET = text(ShardwiseSettings.RYW_SECRET, "text, 32+ characters", null,
      "HMAC secret of consistency tokens, the same on every instance")
      .shown("none (required when a `@ReadYourWrites` entity is mapped)");
  static final Setting RYW_ACCEPTED_SECRET = text(ShardwiseSettings.RYW_ACCEPTED_SECRET,
      "text, 32+ characters; needs `ryw.secret`", null,
      "a second secret whose tokens are accepted but never issued, for rotating `ryw.secret` "
          + "([security](security.md))");
  static final Setting RYW_PIN_TTL = integer(ShardwiseSettings.RYW_PIN_TTL, 1000, 86_400_000, 60_000, "ms",
      "how long a read-your-writes pin is kept");
  static final Setting SCATTER_MAX_ROWS = integer(ShardwiseSettings.SCATTER_MAX_ROWS, 1, 100_000_000, 100_000, "rows",
      "most rows one scatter-gather query may hold, summed over its shards; more fails with "
          + "`ScatterRowLimitException` ([cross-shard queries](cross-shard-queries.md#how-it-runs))");
  static final Setting SCATTER_FETCH_SIZE = integer(ShardwiseSettings.SCATTER_FETCH_SIZE, 1, 1_000_000, 1000, "rows",
      "rows per round trip of each shard's scatter-gather cursor");
  static final Setting SCATTER_THREADS = integer(ShardwiseSettings.SCATTER_THREADS, 1, 1024, 0, null,
      "threads that fan scatter-gather queries out on JDK 17; on 21+ each part runs on a virtual thread and this × 17"
          + " bounds the parts in flight ([cross-shard queries](cross-shard-queries.md))")
      .computed("2 × shards, within 4..16");
  static final Setting RESHARD_PAUSE_LIMIT = integer(ShardwiseSettings.RESHARD_PAUSE_LIMIT, 1, 60_000, 100, "ms",
      "longest write pause of a move's write switch ([online resharding](resharding.md))");
  static final Setting RESHARD_MAX_SWITCH_LAG = integer(ShardwiseSettings.RESHARD_MAX_SWITCH_LAG,
      0, Integer.MAX_VALUE, 16 << 20, "bytes",
      "a write switch is not attempted while the target is further behind").shown("16777216 (16 MiB)");
  static final Setting RESHARD_VERIFY_THREADS = integer(ShardwiseSettings.RESHARD_VERIFY_THREADS, 1, 64, 4, null,
      "parallel checksum queries of a verification");
  static final Setting RESHARD_DELETE_BATCH = integer(ShardwiseSettings.RESHARD_DELETE_BATCH,
      1, 1_000_000, 5000, "rows",
      "rows deleted per transaction when a move completes");
  static final Setting RESHARD_FENCE_GRACE = integer(ShardwiseSettings.RESHARD_FENCE_GRACE, 0, 86_400_000, 5000, "ms",
      "with the router lease off only: the wait before the copy and between the write switch and `complete` "
          + "dropping the source's fences");
  static final Setting RESHARD_STATEMENT_TIMEOUT = integer(ShardwiseSettings.RESHARD_STATEMENT_TIMEOUT,
      1, 86_400_000, 3_600_000, "ms",
      "`statement_timeout` of an online move's own connections to the shards (their lock timeout is "
          + "`shardwise.control.lock_timeout_ms`)");
  static final Setting TX_ENABLED = flag(ShardwiseSettings.TX_ENABLED, true,
      "cross-shard transactions when a control database is set ([transactions](transactions.md))");
  static final Setting TX_RECOVERY_INTERVAL = integer(ShardwiseSettings.TX_RECOVERY_INTERVAL,
      1, 86_400_000, 10_000, "ms",
      "how often recovery looks for in-doubt transactions and unfinished sagas");
  static final Setting TX_IN_DOUBT_GRACE = integer(ShardwiseSettings.TX_IN_DOUBT_GRACE, 1, 604_800_000, 60_000, "ms",
      "a live coordinator's prepared transaction is left alone this long");
  static final Setting TX_LOG_POOL_SIZE = integer(ShardwiseSettings.TX_LOG_POOL_SIZE, 1, 100, 3, null,
      "connections of the coordinator's decision-log pool in the control database");
  static final Setting SAGA_MAX_ATTEMPTS = integer(ShardwiseSettings.SAGA_MAX_ATTEMPTS, 1, 1000, 5, null,
      "attempts of a saga step before the saga compensates");
  static final Setting SAGA_BACKOFF = integer(ShardwiseSettings.SAGA_BACKOFF, 1, 3_600_000, 50, "ms",
      "first backoff between saga step attempts, doubled each time");
  static final Setting METER_REGISTRY = object(ShardwiseSettings.METER_REGISTRY,
      "a Micrometer `MeterRegistry` object (not text)",
      "where Shardwise's meters go (`Shardwise.configure().meterRegistry(registry)`; the Spring Boot starter "
          + "sets the application's registry); none: no meters, and Micrometer need not be on the class path "
          + "([operations](operations.md#metrics))");
  static final Setting OBSERVATION_REGISTRY = object(ShardwiseSettings.OBSERVATION_REGISTRY,
      "a Micrometer `ObservationRegistry` object (not text)",
      "where Shardwise's observations (traces) go (`Shardwise.configure().observationRegistry(registry)`; the "
          + "Spring Boot starter sets the application's registry); none: no observations, at the cost of a null check"
          + " where each would start ([operations](operations.md#traces))");
  static final Setting SNOWFLAKE_WORKER_ID = integer(SnowflakeSettings.WORKER_ID, 0, (1 << 20) - 1, 0, null,
      "a fixed `@SnowflakeId` worker id ([ids](ids.md)); or:").note("at most the layout's maximum").computed("none");
  static final Setting SNOWFLAKE_LEASE_URL = text(SnowflakeSettings.LEASE_URL, "JDBC URL", null,
      "a control database to lease a worker id from");
  static final Setting SNOWFLAKE_LEASE_USER = text(SnowflakeSettings.LEASE_USER, "text", null,
      "credentials for the lease URL");
  static final Setting SNOWFLAKE_LEASE_PASSWORD = text(SnowflakeSettings.LEASE_PASSWORD, "text", null,
      "credentials for the lease URL");
  static final Setting SNOWFLAKE_LEASE_TTL_SECONDS = integer(SnowflakeSettings.LEASE_TTL_SECONDS, 1, 86_400, 30, "s",
      "lease time-to-live");
  static final Setting SNOWFLAKE_CLOCK = choice(SnowflakeSettings.CLOCK, "system",
      "`ticking`: a clock thread refreshes the time every millisecond (fixed worker ids only)",
      "system", "ticking");
  static final Setting IDS_DEFAULT = choice(ShardwiseSettings.IDS_DEFAULT, "none",
      "`snowflake`: every sharded entity whose id is a `Long`/`long` with no generator of its own gets "
          + "`@SnowflakeId` (so an `@Id` on a `@MappedSuperclass` serves the whole model); an `Integer` id without a "
          + "generator is refused at start-up ([ids](ids.md#one-id-strategy-per-model-shardwiseidsdefault))",
      "none", "snowflake");
  static final Setting IDS_GENERATED = choice(ShardwiseSettings.IDS_GENERATED, "per_shard",
      "`cluster`: every sharded entity's `@GeneratedValue` id (identity, sequence, table, auto on a "
          + "`Short`/`Integer`/`Long` id) keeps its type and mapping, and its values come from one counter per table "
          + "in the control database — unique across shards, and routing to the session's shard for a root whose key "
          + "is its id; needs `shardwise.control.url`. `per_shard`: such a root is refused at start-up, naming this "
          + "setting ([ids](ids.md#keeping-the-applications-ids-shardwiseidsgenerated--cluster))",
      "per_shard", "cluster");
  static final Setting HOTSPOTS_ENABLED = flag(ShardwiseSettings.HOTSPOTS_ENABLED, true,
      "count sessions routed by key per bucket and sample their keys for the hotspot report "
          + "([operations](operations.md#hotspots))");
  static final Setting HOTSPOTS_SAMPLE = integer(ShardwiseSettings.HOTSPOTS_SAMPLE, 1, 1 << 16, 64, null,
      "one routed key in this many feeds the hot-key summary").note("a power of two");
  static final Setting HOTSPOTS_KEY_CHECK = choice(ShardwiseSettings.HOTSPOTS_KEY_CHECK, "off",
      "`startup`: at start-up, log a warning for each shard key column whose `pg_stats` look low-cardinality "
          + "(or monotonic under range sharding)",
      "off", "startup");

  private static final List<Setting> ALL = collect();
  private static final Map<String, Setting> BY_NAME = byName();

  private SettingRegistry() {}

  private static Setting roleTimeout(String role, String name, long min, long max, long defaultValue,
      String description) {
    return integer(role + name, min, max, defaultValue, "ms", description).perRole();
  }

  /** Every setting, in the order of the docs' table. */
  public static List<Setting> all() {
    return ALL;
  }

  /** The setting named {@code name} (a pattern such as {@code shardwise.shard.<id>.url} for a key with a variable part). */
  public static Setting get(String name) {
    Setting setting = BY_NAME.get(name);
    if (setting == null) {
      throw new IllegalArgumentException(name + " is not in the settings registry");
    }
    return setting;
  }

  /** The keys without a variable part. */
  static List<String> fixedKeys() {
    return ALL.stream().filter(s -> !s.isPattern()).map(Setting::name).toList();
  }

  /** The fields of this class in declaration order: the order of the docs' table. */
  private static List<Setting> collect() {
    List<Setting> all = new ArrayList<>();
    for (Field field : SettingRegistry.class.getDeclaredFields()) {
      if (field.getType() == Setting.class && Modifier.isStatic(field.getModifiers())) {
        try {
          all.add((Setting) field.get(null));
        } catch (IllegalAccessException e) {
          throw new IllegalStateException(e);
        }
      }
    }
    return Collections.unmodifiableList(all);
  }

  private static Map<String, Setting> byName() {
    Map<String, Setting> byName = new LinkedHashMap<>();
    for (Setting setting : ALL) {
      if (byName.put(setting.name(), setting) != null) {
        throw new IllegalStateException(setting.name() + " is defined twice in the settings registry");
      }
    }
    return byName;
  }
}
