package io.shardwise.hibernate;


/**
 * The configuration properties Shardwise reads, set like any Hibernate or JPA property (in
 * persistence.xml, hibernate.properties, or through {@link Shardwise#configure()}).
 *
 * <p>Two Hibernate properties connect Shardwise to Hibernate; the fluent builder sets them for you:
 * <pre>
 * hibernate.multi_tenant_connection_provider = io.shardwise.hibernate.spi.ShardwiseConnectionProvider
 * hibernate.tenant_identifier_resolver       = io.shardwise.hibernate.spi.ShardContextResolver
 * </pre>
 *
 * <p>Every {@code shardwise.*} property is read and checked once, when the session factory is
 * built, before anything connects: a bad value, or a key Shardwise does not know (a typo), fails
 * the build with every problem listed. docs/routing.md lists every key with its type and default;
 * the {@code @SnowflakeId} settings are the constants of {@link io.shardwise.hibernate.id.SnowflakeGenerator}.
 */
public final class ShardwiseSettings {
  private ShardwiseSettings() {}

  /** Comma-separated shard ids of a static shard map, e.g. {@code s0,s1,s2}. */
  public static final String SHARDS = "shardwise.shards";

  /** Prefix of per-shard settings: {@code shardwise.shard.<id>.url|replicas|weight|state}. */
  public static final String SHARD_PREFIX = "shardwise.shard.";

  /** Number of logical buckets (default 1024). Fixed for the life of a deployment. */
  public static final String BUCKETS = "shardwise.buckets";

  /** {@code bucket} (default), {@code ring}, {@code range} or {@code directory}. */
  public static final String STRATEGY = "shardwise.strategy";

  /** Ring strategy: virtual nodes per unit of shard weight (default 256). */
  public static final String RING_VNODES = "shardwise.ring.vnodes";

  /** Prefix of the range strategy's {@code shardwise.range.<shardId> = lower..upper} settings. */
  public static final String RANGE_PREFIX = "shardwise.range.";

  /** Prefix of the directory strategy's {@code shardwise.directory.<key> = <shardId>} settings. */
  public static final String DIRECTORY_PREFIX = "shardwise.directory.";

  /** Directory strategy: {@code none} (default, unlisted keys are refused), {@code bucket} or {@code ring}. */
  public static final String FALLBACK = "shardwise.fallback";

  /** JDBC URL of the control database that holds the shard map; when set, the map is read from it. */
  public static final String CONTROL_URL = "shardwise.control.url";

  /** Initialise an empty control database from the static shard map in this configuration (default false). */
  public static final String CONTROL_INITIALIZE = "shardwise.control.initialize";

  /**
   * Shardwise's own DDL (its schema {@code shardwise}: the transaction log and the shard map in the
   * control database, saga markers and global-index tables on every shard, worker leases):
   * {@code validate} (default) only reads the catalog and fails with
   * {@link ShardwiseObjectsMissingException}, whose message carries the SQL to run, when an object is
   * missing; {@code create} creates what is missing ({@code CREATE ... IF NOT EXISTS}, which needs
   * {@code CREATE} on each database). See {@link ShardwiseDdl} and docs/security.md.
   */
  public static final String DDL = "shardwise.ddl";

  /** User and password for shard connections (default: jakarta.persistence.jdbc.user / password). */
  public static final String USER = "shardwise.user";

  public static final String PASSWORD = "shardwise.password";

  /** Maximum connections per shard primary pool (default 10). */
  public static final String POOL_SIZE = "shardwise.pool.size";

  /**
   * Connections each pool keeps open while idle (default 0: a pool opens its first connection when a
   * session first needs it, so a shard that is down at start-up delays nobody).
   */
  public static final String POOL_MIN_IDLE = "shardwise.pool.min_idle";

  /** How long a session waits for a shard connection before ShardUnavailableException (ms, default 5000). */
  public static final String CONNECTION_TIMEOUT = "shardwise.pool.connection_timeout_ms";

  /**
   * Deadlines of the connections to shard primaries: {@code shardwise.primary.<name>}, where
   * {@code <name>} is one of {@link #CONNECT_TIMEOUT_MS}, {@link #SOCKET_TIMEOUT_MS},
   * {@link #STATEMENT_TIMEOUT_MS}, {@link #LOCK_TIMEOUT_MS}, {@link #IDLE_IN_TRANSACTION_TIMEOUT_MS}.
   * One shard's own value: {@code shardwise.shard.<id>.primary.<name>} (also
   * {@code connection_timeout_ms}, which overrides {@link #CONNECTION_TIMEOUT} for that shard).
   * docs/failure-handling.md gives the defaults and the reasoning behind them.
   */
  public static final String PRIMARY_PREFIX = "shardwise.primary.";

  /**
   * Deadlines of the connections to replicas: {@code shardwise.replica.<name>}, the same names as
   * {@link #PRIMARY_PREFIX}; one shard's replicas: {@code shardwise.shard.<id>.replica.<name>}.
   */
  public static final String REPLICA_PREFIX = "shardwise.replica.";

  /** pgjdbc {@code connectTimeout}: how long opening a TCP connection may take (ms, whole seconds for the driver). */
  public static final String CONNECT_TIMEOUT_MS = "connect_timeout_ms";

  /**
   * pgjdbc {@code socketTimeout}: how long one read from the server may wait (ms, whole seconds for
   * the driver; 0 = none). What ends a call into a frozen server; larger than the statement timeout,
   * so that a slow but live server cancels its own statement first.
   */
  public static final String SOCKET_TIMEOUT_MS = "socket_timeout_ms";

  /** Server-side {@code statement_timeout} of every pooled connection (ms, 0 = none). */
  public static final String STATEMENT_TIMEOUT_MS = "statement_timeout_ms";

  /** Server-side {@code lock_timeout} (ms, 0 = none). */
  public static final String LOCK_TIMEOUT_MS = "lock_timeout_ms";

  /** Server-side {@code idle_in_transaction_session_timeout} (ms, 0 = none). */
  public static final String IDLE_IN_TRANSACTION_TIMEOUT_MS = "idle_in_transaction_timeout_ms";

  /** The HikariCP checkout timeout of one shard's pools, in {@code shardwise.shard.<id>.primary|replica.<name>}. */
  public static final String POOL_CONNECTION_TIMEOUT_MS = "connection_timeout_ms";

  /**
   * The bulkhead: the most units of work that may hold or wait for a connection of one shard's
   * primary at once (default twice {@link #POOL_SIZE}: a pool's worth working and as many waiting).
   * One more fails at once with {@code ShardSaturatedException}, so that one shard can never occupy
   * every application thread.
   */
  public static final String BULKHEAD_MAX_CONCURRENT = "shardwise.bulkhead.max_concurrent";

  /**
   * Consecutive timeouts or connection failures of one server (a primary or a replica) after which
   * its circuit breaker opens and calls to it fail at once (default 3).
   */
  public static final String BREAKER_FAILURE_THRESHOLD = "shardwise.breaker.failure_threshold";

  /** How long an open circuit breaker refuses calls before one probe may try the server again (ms, default 1000). */
  public static final String BREAKER_OPEN_MS = "shardwise.breaker.open_ms";

  /**
   * Schema management on every shard at startup: {@code none} (default), {@code create},
   * {@code drop-and-create} (alias of create), {@code update}, {@code validate}. Use this instead of
   * {@code hibernate.hbm2ddl.auto}, which would only reach one shard.
   */
  public static final String SCHEMA_ACTION = "shardwise.schema.action";

  /**
   * Where the Flyway migration scripts applied to every shard are, comma-separated Flyway locations
   * (default {@code classpath:db/migration}; {@code filesystem:/path} for a directory). A location
   * that does not exist is an error, not an empty list of scripts.
   */
  public static final String MIGRATIONS_LOCATIONS = "shardwise.migrations.locations";

  /**
   * What a session factory does when its shards are at different schema versions: {@code refuse}
   * (default: it does not start), {@code mark-unavailable} (the shards behind refuse their sessions)
   * or {@code off}. See {@code io.shardwise.hibernate.migrations.VersionGate}.
   */
  public static final String MIGRATIONS_GATE = "shardwise.migrations.gate";

  /** The name of Flyway's history table on every shard (default {@code flyway_schema_history}). */
  public static final String MIGRATIONS_TABLE = "shardwise.migrations.table";

  /**
   * For shards whose schema existed before migrations (e.g. made with {@link #SCHEMA_ACTION}): the
   * version their existing tables stand for. A shard with tables but no history table is then
   * recorded at this version and only later scripts run on it. Unset (default): such a shard is
   * refused, so that {@code V1} never runs over tables it did not create.
   */
  public static final String MIGRATIONS_BASELINE_VERSION = "shardwise.migrations.baseline_version";

  /** Replica choice: {@code round_robin} (default) or {@code least_outstanding}. */
  public static final String REPLICA_BALANCE = "shardwise.replica.balance";

  /** A replica whose replay is further behind its primary than this is taken out of rotation (ms, default 5000). */
  public static final String REPLICA_MAX_LAG_MS = "shardwise.replica.max_lag_ms";

  /** The same in WAL bytes (default 64 MiB). */
  public static final String REPLICA_MAX_LAG_BYTES = "shardwise.replica.max_lag_bytes";

  /** How often the monitor checks every replica (ms, default 200). */
  public static final String REPLICA_MONITOR_INTERVAL = "shardwise.replica.monitor_interval_ms";

  /** How long a read waits for a replica connection before it falls back to the primary (ms, default 1000). */
  public static final String REPLICA_CONNECTION_TIMEOUT = "shardwise.replica.connection_timeout_ms";

  /**
   * Hedged replica reads (default {@code false}): a read-only unit of work run through a
   * {@code ShardRoute} callback that is still running on a replica after the hedge delay runs once
   * more, in another thread, on another replica or the primary (under the same read-your-writes
   * requirement); the first answer wins and the other is cancelled. A route can say otherwise with
   * {@code ShardRoute.hedged(boolean)}. See docs/failure-handling.md, "Hedged replica reads".
   */
  public static final String READ_HEDGE_ENABLED = "shardwise.read.hedge.enabled";

  /** The percentile of a replica's recent read-only unit latencies the hedge delay starts from (50..99, default 95). */
  public static final String READ_HEDGE_PERCENTILE = "shardwise.read.hedge.percentile";

  /** What that percentile is multiplied by to give the hedge delay (a decimal, 1..100, default 2). */
  public static final String READ_HEDGE_MULTIPLIER = "shardwise.read.hedge.multiplier";

  /** The shortest hedge delay, in milliseconds (default 20): jitter below it never hedges. */
  public static final String READ_HEDGE_FLOOR_MS = "shardwise.read.hedge.floor_ms";

  /**
   * The longest hedge delay, in milliseconds (default 1000); also the delay on a replica with fewer
   * than 20 recent units, whose percentile is not known yet.
   */
  public static final String READ_HEDGE_CEILING_MS = "shardwise.read.hedge.ceiling_ms";

  /**
   * The HMAC secret that signs consistency tokens; the same on every instance (32+ random bytes).
   * Required at start-up when the persistence unit maps a {@code @ReadYourWrites} entity.
   */
  public static final String RYW_SECRET = "shardwise.ryw.secret";

  /**
   * A second secret whose consistency tokens are accepted but never issued, for rotating
   * {@link #RYW_SECRET}: accept the new secret everywhere, then sign with it, then drop the old.
   */
  public static final String RYW_ACCEPTED_SECRET = "shardwise.ryw.accepted_secret";

  /** How long an LSN pin is kept (ms, default 60000); replicas further behind are out of rotation long before. */
  public static final String RYW_PIN_TTL = "shardwise.ryw.pin_ttl_ms";

  /**
   * The most rows one scatter-gather query may hold in memory, summed over its shards (default
   * 100000). A query that would hold more fails with {@code ScatterRowLimitException}; a LIMIT, keyset
   * pagination ({@code after(...)}) or a narrower WHERE keeps it under.
   */
  public static final String SCATTER_MAX_ROWS = "shardwise.scatter.max_rows";

  /** Rows a shard sends per round trip to a scatter-gather query, from a server-side cursor (default 1000). */
  public static final String SCATTER_FETCH_SIZE = "shardwise.scatter.fetch_size";

  /** Cross-shard transactions (two-phase commit, sagas, reference-table writes) when a control database is set (default true). */
  public static final String TX_ENABLED = "shardwise.tx.enabled";

  /** How often recovery looks for in-doubt prepared transactions and unfinished sagas (ms, default 10000). */
  public static final String TX_RECOVERY_INTERVAL = "shardwise.tx.recovery_interval_ms";

  /** A prepared transaction of a live coordinator is left alone this long before recovery may abort it (ms, default 60000). */
  public static final String TX_IN_DOUBT_GRACE = "shardwise.tx.in_doubt_grace_ms";

  /**
   * Connections of the pool that writes coordinator heartbeats and the saga log to the control
   * database (default 3). Two-phase commit does not use it on its commit path.
   */
  public static final String TX_LOG_POOL_SIZE = "shardwise.tx.log_pool_size";

  /** Attempts of a saga step on transient failures before the saga compensates (default 5). */
  public static final String SAGA_MAX_ATTEMPTS = "shardwise.saga.max_attempts";

  /** First backoff between saga step attempts, doubled each time (ms, default 50). */
  public static final String SAGA_BACKOFF = "shardwise.saga.backoff_ms";

  /** Threads that fan scatter-gather queries out on JDK 17 (default twice the shard count, at least 4, at most 16); on JDK 21+ parts run on virtual threads and this times 17 bounds the parts in flight. */
  public static final String SCATTER_THREADS = "shardwise.scatter.threads";

  /**
   * How often each router compares the control database's map version with its own, in case a
   * notification was lost (ms, default 1000). Changes normally arrive by notification, within milliseconds.
   */
  public static final String CONTROL_VERSION_CHECK_INTERVAL = "shardwise.control.version_check_interval_ms";

  /**
   * The router lease (ms, default 120000; 0 turns it off). Each router registers in the control
   * database and acknowledges every map version; online moves wait for the acknowledgements of the
   * routers whose lease runs instead of {@link #RESHARD_FENCE_GRACE}. A router that cannot confirm its
   * map with the control database for a whole lease refuses routing by key and scatter-gather with
   * {@code ShardMapStaleException} until it can: the control database is then needed for routing
   * after the lease. At least three {@link #CONTROL_VERSION_CHECK_INTERVAL}s; the same in every process.
   */
  public static final String CONTROL_ROUTER_LEASE = "shardwise.control.router_lease_ms";

  /**
   * How long a statement on a connection Shardwise opens to the control database (the shard map,
   * its DDL, an online move's records and its staged map change) waits for a lock (ms, default
   * 5000); also the lock timeout of an online move's own connections to the shards. A timeout fails
   * with a message naming what holds the lock (a prepared transaction by its gid) and what to do.
   */
  public static final String CONTROL_LOCK_TIMEOUT = "shardwise.control.lock_timeout_ms";

  /** How long one statement on a connection Shardwise opens to the control database may run (ms, default 30000). */
  public static final String CONTROL_STATEMENT_TIMEOUT = "shardwise.control.statement_timeout_ms";

  /**
   * Online resharding: how long one statement of a move on a shard may run (ms, default 3600000: an
   * index build, a bucket's checksum or a batch of deletes on a large table); its lock waits are
   * bounded by {@link #CONTROL_LOCK_TIMEOUT}.
   */
  public static final String RESHARD_STATEMENT_TIMEOUT = "shardwise.reshard.statement_timeout_ms";

  /**
   * Online resharding: the longest writes to the moving buckets may pause at the write switch (ms,
   * default 100). If in-flight transactions do not finish, or the target does not catch up, within
   * it, the switch is abandoned and writes go on at the source.
   */
  public static final String RESHARD_PAUSE_LIMIT = "shardwise.reshard.pause_limit_ms";

  /** Online resharding: the switch of writes is not attempted while the target is further behind than this (bytes of WAL, default 16 MiB). */
  public static final String RESHARD_MAX_SWITCH_LAG = "shardwise.reshard.max_switch_lag_bytes";

  /** Online resharding: parallel checksum queries of a verification (default 4). */
  public static final String RESHARD_VERIFY_THREADS = "shardwise.reshard.verify_threads";

  /** Online resharding: rows deleted from the source per transaction when a move completes (default 5000). */
  public static final String RESHARD_DELETE_BATCH = "shardwise.reshard.delete_batch_rows";

  /**
   * Online resharding, only with the router lease off ({@link #CONTROL_ROUTER_LEASE} = 0): how long a
   * move waits after recording the target's copy before it copies, and how long after the write switch
   * {@code complete} keeps the source's fences, so that routers which missed the change are refused
   * rather than write to rows about to be deleted (ms, default 5000; make it longer than the time a
   * router may be cut off from the control database). With the lease on, moves wait for the routers'
   * acknowledgements instead.
   */
  public static final String RESHARD_FENCE_GRACE = "shardwise.reshard.fence_grace_ms";

  /**
   * A Micrometer {@code MeterRegistry} (the object itself, not a name) that receives Shardwise's
   * meters: sessions per shard, HikariCP's pool meters per shard and role, replica lag, scatter-gather
   * and cross-shard transaction outcomes (docs/operations.md). Unset: no meters, and Micrometer need
   * not be on the class path. {@code Shardwise.configure().meterRegistry(registry)} sets it; the Spring
   * Boot starter sets it to the application's registry.
   */
  public static final String METER_REGISTRY = "shardwise.metrics.registry";

  /**
   * A Micrometer {@code ObservationRegistry} (the object itself) that receives Shardwise's
   * observations, for traces: each unit of work on a shard, each scatter-gather query with one child
   * per shard, each cross-shard transaction with one child per participant (docs/operations.md,
   * "Traces"). Unset: no observations, at the cost of one null check where each would start.
   * {@code Shardwise.configure().observationRegistry(registry)} sets it; the Spring Boot starter sets
   * it to the application's registry.
   */
  public static final String OBSERVATION_REGISTRY = "shardwise.observation.registry";

  /**
   * The id strategy of sharded entities that declare none: {@code none} (default) leaves them as
   * mapped; {@code snowflake} gives every sharded (non-reference) entity whose id is a
   * {@code Long}/{@code long} without a generator of its own a {@code @SnowflakeId} with the default
   * layout, so an {@code @Id} declared once on a {@code @MappedSuperclass} serves every entity.
   * Entities with a generator of their own keep it; an {@code Integer}/{@code int} id without one
   * is refused at start-up (too small for Snowflake ids).
   */
  public static final String IDS_DEFAULT = "shardwise.ids.default";

  /**
   * Where the values of database-generated ids of sharded entities come from: {@code per_shard}
   * (default) leaves {@code @GeneratedValue} (identity, sequence, table, auto) to each shard's own
   * database, whose values repeat across shards; {@code cluster} keeps the mapping and the id type
   * ({@code Integer}, {@code Long}, ...) but takes the values from one counter per table in the
   * control database, unique across shards, and gives a root whose shard key is its id a value
   * that routes to the session's shard. Needs {@link #CONTROL_URL}.
   */
  public static final String IDS_GENERATED = "shardwise.ids.generated";

  /**
   * Hotspot counting: {@code true} (default) counts every session routed by key per bucket and
   * samples its key into a summary of the most frequent keys (docs/operations.md, "Hotspots");
   * {@code false} counts nothing.
   */
  public static final String HOTSPOTS_ENABLED = "shardwise.hotspots.enabled";

  /** One routed key in this many feeds the hot-key summary (a power of two, default 64). */
  public static final String HOTSPOTS_SAMPLE = "shardwise.hotspots.sample";

  /**
   * {@code off} (default) or {@code startup}: at start-up, on a thread of its own, read PostgreSQL's
   * statistics of every shard key column and log a warning for keys that look low-cardinality (or
   * monotonic under range sharding). {@code ShardedSessions.hotspots().checkShardKeys()} runs the
   * same check at any time.
   */
  public static final String HOTSPOTS_KEY_CHECK = "shardwise.hotspots.key_check";
}
