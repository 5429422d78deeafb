package io.shardwise.hibernate.metrics.internal;

import com.zaxxer.hikari.metrics.MetricsTrackerFactory;
import com.zaxxer.hikari.metrics.micrometer.MicrometerMetricsTrackerFactory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.shardwise.hibernate.metrics.SessionKind;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import io.shardwise.hibernate.internal.jdbc.StatementTimer;
import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.hibernate.routing.ShardMap;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.function.Supplier;

/**
 * Shardwise's meters in a Micrometer registry (docs/operations.md has the table).
 *
 * <p>The hot path is {@link #sessionOpened}: it finds the shard's counters in an array by the
 * identity of the router's shard id string, then the kind's counter by ordinal. No tags are built
 * and no map is consulted per call; the meters of a shard are registered the first time it is
 * seen (a shard added to the map later gets them then).
 */
final class MicrometerMetrics implements ShardwiseMetrics, StatementTimers {
  static final String SESSIONS = "shardwise.sessions";
  static final String READS = "shardwise.reads";
  static final String PINNED_READS = "shardwise.ryw.primary.reads";
  static final String REPLICA_LAG_BYTES = "shardwise.replica.lag.bytes";
  static final String REPLICA_LAG = "shardwise.replica.lag";
  static final String REPLICA_HEALTHY = "shardwise.replica.healthy";
  static final String SCATTER_FANOUT = "shardwise.scatter.fanout";
  static final String SCATTER_SHARD = "shardwise.scatter.shard";
  static final String CROSS_SHARD = "shardwise.crossshard.transactions";
  static final String MAP_VERSION = "shardwise.shardmap.version";
  static final String MAP_CHANGES = "shardwise.shardmap.changes";
  static final String SHARD_BUCKETS = "shardwise.shard.buckets";
  static final String PREPARED = "shardwise.transactions.prepared";
  static final String PINS = "shardwise.ryw.pins";
  static final String REFUSALS = "shardwise.guard.refusals";
  static final String SAGAS = "shardwise.sagas";
  static final String TRANSACTIONS = "shardwise.transaction";
  static final String STATEMENTS = "shardwise.statement";
  /** The states of {@code shardwise.saga.state} (ShardwiseDdl). */
  private static final List<String> SAGA_STATES = List.of("RUNNING", "COMPENSATING", "COMPLETED", "COMPENSATED");

  /** The {@code shard} tag of a session opened without a shard. */
  static final String NO_SHARD_TAG = "none";

  private static final SessionKind[] KINDS = SessionKind.values();

  private final MeterRegistry registry;
  private final PerShard<Counter[]> sessions;
  private final Counter noShardSessions;
  private final PerShard<Counter[]> reads;
  private final PerShard<Counter> pinnedReads;
  private final PerShard<Timer[]> scatterShards;
  private final DistributionSummary fanOut;
  private final Map<CrossShardOutcome, PerShard<Counter>> crossShard = new ConcurrentHashMap<>();
  private final Map<String, List<Meter>> replicaGauges = new ConcurrentHashMap<>();
  private final Map<String, Gauge> bucketGauges = new ConcurrentHashMap<>();
  private volatile Supplier<ShardMap> currentMap;
  private final java.util.concurrent.atomic.AtomicLong lastVersion = new java.util.concurrent.atomic.AtomicLong(Long.MIN_VALUE);
  private Counter mapChanges;
  private final Counter[] refusals;
  /** Per shard: read-write committed, read-write rolled back, read-only committed, read-only rolled back. */
  private final PerShard<Timer[]> transactions;
  /** Shards seen in a published map, and what registers a per-shard gauge for each (idempotent). */
  private final Set<String> seenShards = ConcurrentHashMap.newKeySet();
  private final List<Consumer<String>> shardGauges = new CopyOnWriteArrayList<>();
  private final Map<String, Gauge> perShardGauges = new ConcurrentHashMap<>();

  private MicrometerMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.sessions = new PerShard<>(shard -> {
      Counter[] byKind = new Counter[KINDS.length];
      for (SessionKind kind : KINDS) {
        byKind[kind.ordinal()] = sessionCounter(kind, shard);
      }
      return byKind;
    });
    this.noShardSessions = sessionCounter(SessionKind.NO_SHARD, NO_SHARD_TAG);
    this.reads = new PerShard<>(shard -> new Counter[] {
        Counter.builder(READS).description("Read-only connections handed out, by the server role that served them")
            .tags("shard", shard, "role", "primary").register(registry),
        Counter.builder(READS).description("Read-only connections handed out, by the server role that served them")
            .tags("shard", shard, "role", "replica").register(registry)});
    this.pinnedReads = new PerShard<>(shard -> Counter.builder(PINNED_READS)
        .description("Reads of a read-your-writes scope that a primary served because the scope's pin required it")
        .tags("shard", shard, "role", "primary").register(registry));
    this.scatterShards = new PerShard<>(shard -> new Timer[] {scatterTimer(shard, "success"),
        scatterTimer(shard, "error")});
    this.fanOut = DistributionSummary.builder(SCATTER_FANOUT).baseUnit("shards")
        .description("Shards one scatter-gather query was sent to").register(registry);
    this.transactions = new PerShard<>(shard -> {
      StatementTimer.TransactionOutcome[] outcomes = StatementTimer.TransactionOutcome.values();
      Timer[] timers = new Timer[outcomes.length * 2];
      for (StatementTimer.TransactionOutcome outcome : outcomes) {
        timers[outcome.ordinal()] = transactionTimer(shard, "read-write", outcome.tag());
        timers[outcomes.length + outcome.ordinal()] = transactionTimer(shard, "read-only", outcome.tag());
      }
      return timers;
    });
    Refusal[] kinds = Refusal.values();
    this.refusals = new Counter[kinds.length];
    for (Refusal kind : kinds) {
      refusals[kind.ordinal()] = Counter.builder(REFUSALS)
          .description("Operations a Shardwise guard refused, by the kind of refusal").tags("kind", kind.tag())
          .register(registry);
    }
  }

  /** The recorder for {@code registry}, which must be a Micrometer {@code MeterRegistry}. */
  static MicrometerMetrics bind(Object registry) {
    return new MicrometerMetrics((MeterRegistry) registry);
  }

  private Counter sessionCounter(SessionKind kind, String shard) {
    return Counter.builder(SESSIONS).description("Sessions opened, by shard and by how the shard was chosen")
        .tags("shard", shard, "kind", kind.tag()).register(registry);
  }

  private Timer scatterTimer(String shard, String outcome) {
    return Timer.builder(SCATTER_SHARD).description("One shard's part of a scatter-gather query")
        .tags("shard", shard, "outcome", outcome).register(registry);
  }

  @Override
  public void sessionOpened(SessionKind kind, String shardId) {
    if (shardId == null) {
      noShardSessions.increment();
      return;
    }
    sessions.get(shardId)[kind.ordinal()].increment();
  }

  @Override
  public void readServed(String shardId, boolean byReplica) {
    reads.get(shardId)[byReplica ? 1 : 0].increment();
  }

  @Override
  public void pinnedReadOnPrimary(String shardId) {
    pinnedReads.get(shardId).increment();
  }

  /**
   * HikariCP's own tracker, registering into a composite registry of this pool alone whose common
   * tags (shard, role, node) are added to every meter before it reaches the application's registry;
   * HikariCP's {@code pool} tag stays.
   */
  @Override
  public MetricsTrackerFactory poolTracker(String shardId, String role, String node) {
    CompositeMeterRegistry tagged = new CompositeMeterRegistry(registry.config().clock());
    tagged.config().commonTags("shard", shardId, "role", role, "node", node);
    tagged.add(registry);
    return new MicrometerMetricsTrackerFactory(tagged);
  }

  @Override
  public void watchReplica(String shardId, String node, Supplier<ReplicaStatus> status) {
    replicaGauges.computeIfAbsent(shardId + '\n' + node, k -> List.of(
        Gauge.builder(REPLICA_LAG_BYTES, status, s -> nonNegativeOrNaN(s.get().lagBytes())).baseUnit("bytes")
            .description("WAL bytes the replica has yet to replay (NaN when unknown)")
            .tags("shard", shardId, "role", "replica", "node", node).strongReference(true).register(registry),
        Gauge.builder(REPLICA_LAG, status, s -> {
              double ms = nonNegativeOrNaN(s.get().lagMillis());
              return ms / 1000.0;
            }).baseUnit("seconds")
            .description("How far behind its primary the replica replays (NaN when unknown)")
            .tags("shard", shardId, "role", "replica", "node", node).strongReference(true).register(registry),
        Gauge.builder(REPLICA_HEALTHY, status, s -> s.get().healthy() ? 1 : 0)
            .description("1 while the replica serves reads (reachable, replaying, within the lag limits), else 0")
            .tags("shard", shardId, "role", "replica", "node", node).strongReference(true).register(registry)));
  }

  private static double nonNegativeOrNaN(long value) {
    return value < 0 ? Double.NaN : value;
  }

  @Override
  public void forgetReplica(String shardId, String node) {
    List<Meter> gauges = replicaGauges.remove(shardId + '\n' + node);
    if (gauges != null) {
      gauges.forEach(registry::remove);
    }
  }

  @Override
  public void scatterFanOut(int shards) {
    fanOut.record(shards);
  }

  @Override
  public void scatterShard(String shardId, long nanos, boolean failed) {
    scatterShards.get(shardId)[failed ? 1 : 0].record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void crossShardOutcome(CrossShardOutcome outcome, Set<String> shardIds) {
    PerShard<Counter> counters = crossShard.computeIfAbsent(outcome, o -> new PerShard<>(shard ->
        Counter.builder(CROSS_SHARD).description("Cross-shard (two-phase commit) transactions, by how they ended,"
            + " counted once for each shard they touched").tags("shard", shard, "outcome", o.tag()).register(registry)));
    for (String shardId : shardIds) {
      counters.get(shardId).increment();
    }
  }

  @Override
  public void watchShardMap(Supplier<ShardMap> current) {
    currentMap = current;
    mapChanges = Counter.builder(MAP_CHANGES).description("New shard map versions this instance's router was given")
        .register(registry);
    Gauge.builder(MAP_VERSION, current, maps -> maps.get().version())
        .description("Version of the shard map this instance routes with").strongReference(true).register(registry);
    ShardMap map = current.get();
    lastVersion.set(map.version());
    map.shards().keySet().forEach(this::watchBuckets);
  }

  @Override
  public void shardMapPublished(ShardMap map) {
    long before = lastVersion.getAndAccumulate(map.version(), Math::max);
    if (map.version() > before && mapChanges != null) {
      mapChanges.increment();
    }
    if (currentMap != null) {
      map.shards().keySet().forEach(this::watchBuckets);
    }
  }

  @Override
  public void watchPreparedTransactions(Function<String, Connection> primaryOf, long cacheMillis) {
    PreparedCounts counts = new PreparedCounts(primaryOf, TimeUnit.MILLISECONDS.toNanos(cacheMillis));
    addShardGauge(shardId -> perShardGauges.computeIfAbsent(PREPARED + '\n' + shardId, k ->
        Gauge.builder(PREPARED, counts, c -> c.of(shardId))
            .description("Prepared (in-doubt) transactions on the shard's primary, from pg_prepared_xacts"
                + " (NaN while the primary cannot be read)")
            .tags("shard", shardId, "role", "primary").strongReference(true).register(registry)));
  }

  @Override
  public void watchPins(ToIntFunction<String> pinsOn) {
    addShardGauge(shardId -> perShardGauges.computeIfAbsent(PINS + '\n' + shardId, k ->
        Gauge.builder(PINS, pinsOn, p -> p.applyAsInt(shardId))
            .description("Read-your-writes pins in force on the shard (consistency scopes whose reads it must serve"
                + " fresh)").tags("shard", shardId).strongReference(true).register(registry)));
  }

  @Override
  public void watchSagas(Supplier<Connection> control, long cacheMillis) {
    SagaCounts counts = new SagaCounts(control, TimeUnit.MILLISECONDS.toNanos(cacheMillis));
    for (String state : SAGA_STATES) {
      Gauge.builder(SAGAS, counts, c -> c.of(state))
          .description("Sagas in the control database's log by state (NaN while it cannot be read)")
          .tags("state", state.toLowerCase(java.util.Locale.ROOT)).strongReference(true).register(registry);
    }
  }

  private Timer transactionTimer(String shard, String access, String outcome) {
    return Timer.builder(TRANSACTIONS).description("Transactions on a shard's connections, whichever API opened"
        + " them, from their begin (or first statement) to commit or rollback")
        .tags("shard", shard, "access", access, "outcome", outcome).register(registry);
  }

  @Override
  public StatementTimer statementTimer(String shardId, String role, String node) {
    return new ServerStatements(shardId, role, node);
  }

  /**
   * The statement timers of one server, one per operation and outcome, registered with the pool
   * (so a scrape shows zeros for a server that ran nothing yet).
   */
  private final class ServerStatements implements StatementTimer {
    private final Timer[] timers;
    /** The shard's {@code shardwise.transaction} timers: read-write by outcome, then read-only by outcome. */
    private final Timer[] transactionTimers;
    private final boolean replica;

    ServerStatements(String shardId, String role, String node) {
      this.transactionTimers = transactions.get(shardId);
      this.replica = "replica".equals(role);
      StatementTimer.Operation[] operations = StatementTimer.Operation.values();
      timers = new Timer[operations.length * 2];
      for (StatementTimer.Operation operation : operations) {
        for (int failed = 0; failed < 2; failed++) {
          timers[operation.ordinal() * 2 + failed] = Timer.builder(STATEMENTS)
              .description("Statements sent to one server, from the call into the driver until it returned")
              .tags("shard", shardId, "role", role, "node", node, "operation", operation.tag(),
                  "outcome", failed == 0 ? "success" : "error")
              .register(registry);
        }
      }
    }

    @Override
    public void record(StatementTimer.Operation operation, long nanos, boolean failed) {
      timers[operation.ordinal() * 2 + (failed ? 1 : 0)].record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void transaction(long nanos, boolean readOnly, TransactionOutcome outcome) {
      int base = readOnly || replica ? transactionTimers.length / 2 : 0;
      transactionTimers[base + outcome.ordinal()].record(nanos, TimeUnit.NANOSECONDS);
    }
  }

  @Override
  public void refused(Refusal kind) {
    refusals[kind.ordinal()].increment();
  }

  private void addShardGauge(Consumer<String> register) {
    shardGauges.add(register);
    seenShards.forEach(register);
  }

  private void watchBuckets(String shardId) {
    if (seenShards.add(shardId)) {
      shardGauges.forEach(g -> g.accept(shardId));
    }
    Supplier<ShardMap> maps = currentMap;
    bucketGauges.computeIfAbsent(shardId, id -> Gauge.builder(SHARD_BUCKETS, maps, m -> bucketsOf(m.get(), id))
        .description("Buckets the shard owns in the shard map routing uses now").tags("shard", id)
        .strongReference(true).register(registry));
  }

  private static double bucketsOf(ShardMap map, String shardId) {
    int owned = 0;
    for (int bucket = 0; bucket < map.bucketCount(); bucket++) {
      owned += shardId.equals(map.ownerOf(bucket)) ? 1 : 0;
    }
    return owned;
  }

  /**
   * Counts of {@code pg_prepared_xacts} per shard, read when a registry asks and kept for a short
   * while, so that frequent scrapes cost one query per shard per period. A primary that cannot be
   * read gives NaN (and is asked again on the next scrape).
   */
  static final class PreparedCounts {
    private record Reading(long atNanos, double value) {}

    private final Function<String, Connection> primaryOf;
    private final long cacheNanos;
    private final Map<String, Reading> last = new ConcurrentHashMap<>();

    PreparedCounts(Function<String, Connection> primaryOf, long cacheNanos) {
      this.primaryOf = primaryOf;
      this.cacheNanos = cacheNanos;
    }

    double of(String shardId) {
      long now = System.nanoTime();
      Reading r = last.get(shardId);
      if (r != null && now - r.atNanos < cacheNanos) {
        return r.value;
      }
      double value = read(shardId);
      if (!Double.isNaN(value)) {
        last.put(shardId, new Reading(now, value));
      }
      return value;
    }

    private double read(String shardId) {
      try (Connection c = primaryOf.apply(shardId); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("select count(*) from pg_prepared_xacts where database = current_database()")) {
        rs.next();
        return rs.getLong(1);
      } catch (SQLException | RuntimeException e) {
        return Double.NaN;
      }
    }
  }

  /** Sagas by state, one grouped count of the control database's log per period, read on scrape. */
  static final class SagaCounts {
    private record Reading(long atNanos, Map<String, Long> byState) {}

    private final Supplier<Connection> control;
    private final long cacheNanos;
    private volatile Reading last;

    SagaCounts(Supplier<Connection> control, long cacheNanos) {
      this.control = control;
      this.cacheNanos = cacheNanos;
    }

    double of(String state) {
      long now = System.nanoTime();
      Reading r = last;
      if (r == null || now - r.atNanos >= cacheNanos) {
        Map<String, Long> read = read();
        if (read == null) {
          return Double.NaN;
        }
        r = new Reading(now, read);
        last = r;
      }
      return r.byState.getOrDefault(state, 0L);
    }

    private Map<String, Long> read() {
      try (Connection c = control.get(); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT state, count(*) FROM shardwise.saga GROUP BY state")) {
        Map<String, Long> byState = new java.util.HashMap<>();
        while (rs.next()) {
          byState.put(rs.getString(1), rs.getLong(2));
        }
        return byState;
      } catch (SQLException | RuntimeException e) {
        return null;
      }
    }
  }

  /**
   * Meters of one shard, found by the identity of its id: the router hands out the same string
   * instances, so the first pass finds them without comparing characters. A shard seen for the first
   * time gets its meters under a lock, and a new array.
   */
  static final class PerShard<M> {
    private record Entry<M>(String shardId, M meters) {}

    private final Function<String, M> create;
    @SuppressWarnings("unchecked")
    private volatile Entry<M>[] entries = new Entry[0];

    PerShard(Function<String, M> create) {
      this.create = create;
    }

    M get(String shardId) {
      Entry<M>[] es = entries;
      for (Entry<M> e : es) {
        if (e.shardId == shardId) {
          return e.meters;
        }
      }
      for (Entry<M> e : es) {
        if (e.shardId.equals(shardId)) {
          return e.meters;
        }
      }
      return add(shardId);
    }

    private synchronized M add(String shardId) {
      Entry<M>[] es = entries;
      for (Entry<M> e : es) {
        if (e.shardId.equals(shardId)) {
          return e.meters;
        }
      }
      M meters = create.apply(shardId);
      Entry<M>[] grown = java.util.Arrays.copyOf(es, es.length + 1);
      grown[es.length] = new Entry<>(shardId, meters);
      entries = grown;
      return meters;
    }
  }
}
