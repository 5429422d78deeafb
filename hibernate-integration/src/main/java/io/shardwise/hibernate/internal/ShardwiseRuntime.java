package io.shardwise.hibernate.internal;

import io.shardwise.hibernate.ShardKeyException;
import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.routing.ControlDatabase;
import io.shardwise.hibernate.routing.ControlDatabaseShardMapSource;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardMapSource;
import io.shardwise.hibernate.routing.ShardingStrategies;
import io.shardwise.hibernate.routing.ShardingStrategy;
import io.shardwise.hibernate.routing.StaticShardMapSource;
import io.shardwise.hibernate.Consistency;
import io.shardwise.hibernate.InMemoryPinStore;
import io.shardwise.hibernate.Pin;
import io.shardwise.hibernate.PinStore;
import io.shardwise.hibernate.ReplicaStatus;
import io.shardwise.hibernate.internal.globalindex.GlobalIndexes;
import io.shardwise.hibernate.internal.scatter.ScatterExecutor;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Everything Shardwise holds for one session factory: the configuration, the shard map and the
 * strategy built on it (swapped together, atomically, when the map changes), the pools, and the
 * sharding model of the entities.
 */
public final class ShardwiseRuntime implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("io.shardwise");

  /** A map and the strategy built from it: one volatile read gives a consistent pair. */
  private record Routing(ShardMap map, ShardingStrategy strategy) {}

  private final ShardwiseConfig config;
  private final ControlDatabase control;
  private final ShardMapSource maps;
  private final ShardPools pools;
  private final ThreadLocal<String> schemaTarget = new ThreadLocal<>();
  private volatile Routing routing;
  private volatile ShardingModel model;
  private final ReplicaMonitor monitor;
  private final PinStore pinStore = new InMemoryPinStore();
  private final Consistency consistency;
  private final AtomicInteger roundRobin = new AtomicInteger();
  private final LongAdder replicaReads = new LongAdder();
  private final LongAdder primaryReads = new LongAdder();
  private volatile io.shardwise.hibernate.internal.tx.CrossShardService crossShard;
  private ScatterExecutor scatterExecutor;
  private final GlobalIndexes globalIndexes = new GlobalIndexes(this);

  private ShardwiseRuntime(ShardwiseConfig config, ControlDatabase control, ShardMapSource maps) {
    this.config = config;
    this.control = control;
    this.maps = maps;
    this.pools = new ShardPools(config);
    this.routing = route(maps.current());
    maps.addListener(this::onNewMap);
    this.consistency = io.shardwise.hibernate.ConsistencyAccess.create(pinStore, config.rywSecret(),
        config.rywAcceptedSecret(), config.unitName(), config.pinTtlMs());
    this.monitor = new ReplicaMonitor(config, pools, () -> routing.map());
    monitor.start();
  }

  public static ShardwiseRuntime start(ShardwiseConfig config) {
    if (config.controlUrl() == null) {
      return new ShardwiseRuntime(config, null, new StaticShardMapSource(config.staticMap()));
    }
    ControlDatabase control = new ControlDatabase(config.controlUrl(), config.user(), config.password());
    if (config.controlInitialize()) {
      control.createSchema();
      control.initialize(config.staticMap());
    }
    ShardMapSource source = ControlDatabaseShardMapSource.builder(control).start();
    ShardwiseRuntime runtime;
    try {
      runtime = new ShardwiseRuntime(config, control, source);
    } catch (RuntimeException e) {
      source.close();
      throw e;
    }
    try {
      runtime.crossShard = io.shardwise.hibernate.internal.tx.CrossShardService.startIfConfigured(runtime);
    } catch (RuntimeException e) {
      runtime.close();
      throw e;
    }
    return runtime;
  }

  private Routing route(ShardMap map) {
    try {
      return new Routing(map, ShardingStrategies.fromProperties(config.shardwiseProperties(), map));
    } catch (IllegalArgumentException e) {
      throw new ShardingConfigurationException("Shardwise configuration of persistence unit '" + config.unitName()
          + "': " + e.getMessage(), e);
    }
  }

  private void onNewMap(ShardMap map) {
    try {
      routing = route(map);
      LOG.log(System.Logger.Level.INFO, "Persistence unit ''{0}'' routes with shard map version {1}",
          config.unitName(), map.version());
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "Persistence unit '" + config.unitName() + "' keeps shard map version "
          + routing.map().version() + ": version " + map.version() + " cannot be routed: " + e.getMessage());
    }
  }

  public ShardwiseConfig config() {
    return config;
  }

  public ShardMap shardMap() {
    return routing.map();
  }

  /** The control database, or null for a static map. */
  public ControlDatabase controlDatabase() {
    return control;
  }

  /** Cross-shard transactions (two-phase commit, sagas); fails with the setting to add when there is no control database. */
  public io.shardwise.hibernate.internal.tx.CrossShardService crossShard(String what) {
    io.shardwise.hibernate.internal.tx.CrossShardService service = crossShard;
    if (service == null) {
      throw io.shardwise.hibernate.internal.tx.CrossShardService.notConfigured(this, what);
    }
    return service;
  }

  public ShardPools pools() {
    return pools;
  }

  /**
   * A new session bound to {@code shardId}. Hibernate asks the tenant resolver when the session
   * builder is created, before {@code tenantIdentifier(...)} applies: the resolver is answered with
   * this shard for that moment rather than let it refuse a session that does name its shard.
   */
  public static org.hibernate.Session openSession(org.hibernate.SessionFactory sessionFactory, String shardId,
      boolean readOnly) {
    try (io.shardwise.hibernate.ShardContext.Scope ignored = io.shardwise.hibernate.ShardContext.use(shardId)) {
      return sessionFactory.withOptions().tenantIdentifier((Object) shardId).readOnly(readOnly).openSession();
    }
  }

  /** The shard that owns {@code key}. */
  public String shardFor(Object key) {
    if (key == null) {
      throw new ShardKeyException("A shard key is null: every sharded entity needs its @ShardKey value set,"
          + " and routing by key needs a non-null key");
    }
    try {
      return routing.strategy().shardFor(key);
    } catch (IllegalArgumentException e) {
      throw new ShardKeyException(e.getMessage(), e);
    }
  }

  public void installModel(ShardingModel model) {
    this.model = model;
  }

  public ShardingModel model() {
    ShardingModel m = model;
    if (m == null) {
      throw new IllegalStateException("The sharding model is not installed yet: the session factory has not"
          + " finished starting (is io.shardwise.hibernate.internal.ShardwiseIntegrator on the classpath?)");
    }
    return m;
  }

  public Connection primaryConnection(String shardId) {
    return pools.primary(routing.map(), shardId);
  }

  /**
   * A connection for a read-only session: a healthy replica that satisfies the thread's
   * read-your-writes requirement (waiting for one at most the pin's bound), else the primary.
   * Either way the connection refuses row locks.
   */
  public Connection readOnlyConnection(String shardId) {
    ShardMap map = routing.map();
    Pin requirement = ReadYourWritesTracking.readRequirement();
    List<ReplicaNode> replicas = pools.replicas(map, shardId);
    if (!replicas.isEmpty() && (requirement == null || requirement.primaryUntilMillis() <= System.currentTimeMillis())) {
      long minLsn = requirement == null ? 0 : requirement.minLsn();
      long maxWait = requirement == null ? 0 : requirement.maxWaitMillis();
      Connection replica = replicaConnection(replicas, minLsn, maxWait);
      if (replica != null) {
        replicaReads.increment();
        return replica;
      }
    }
    primaryReads.increment();
    return ReadOnlyConnections.wrap(pools.primary(map, shardId), null, shardId, this::entityOfTable);
  }

  private Connection replicaConnection(List<ReplicaNode> replicas, long minLsn, long maxWaitMillis) {
    ReplicaNode chosen = choose(replicas, minLsn);
    boolean mustVerify = false;
    if (chosen == null && minLsn != 0 && maxWaitMillis > 0) {
      // only a read allowed to wait asks a replica directly; the others trust the monitor's view
      // rather than pay a replica round trip before going to the primary anyway
      chosen = choose(replicas, 0);
      mustVerify = true;
    }
    if (chosen == null) {
      return null;
    }
    Connection c;
    try {
      c = chosen.borrow();
    } catch (SQLException e) {
      chosen.markUnhealthy("no connection: " + e.getMessage());
      return null;
    }
    if (mustVerify && !caughtUp(chosen, c, minLsn, maxWaitMillis)) {
      release(chosen, c);
      return null;
    }
    return ReadOnlyConnections.wrap(c, chosen, chosen.shardId, this::entityOfTable);
  }

  /** The monitor's view may be a few milliseconds old: ask the replica itself, waiting at most the bound. */
  private static boolean caughtUp(ReplicaNode replica, Connection c, long minLsn, long maxWaitMillis) {
    long deadline = System.nanoTime() + maxWaitMillis * 1_000_000;
    try (Statement s = c.createStatement()) {
      while (true) {
        Object stamp = replica.replayStamp();
        try (ResultSet rs = s.executeQuery("SELECT pg_last_wal_replay_lsn()::text")) {
          rs.next();
          String text = rs.getString(1);
          long replay = text == null ? -1 : LsnText.parse(text);
          replica.raiseReplayLsn(stamp, replay);
          if (replay >= 0 && Long.compareUnsigned(replay, minLsn) >= 0) {
            return true;
          }
        }
        if (System.nanoTime() >= deadline) {
          return false;
        }
        Thread.sleep(2);
      }
    } catch (SQLException e) {
      replica.markUnhealthy("check failed: " + e.getMessage());
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private ReplicaNode choose(List<ReplicaNode> replicas, long minLsn) {
    int n = replicas.size();
    if (config.leastOutstanding()) {
      ReplicaNode best = null;
      for (ReplicaNode r : replicas) {
        if (eligible(r, minLsn) && (best == null || r.outstanding.get() < best.outstanding.get())) {
          best = r;
        }
      }
      return best;
    }
    int start = Math.floorMod(roundRobin.getAndIncrement(), n);
    for (int i = 0; i < n; i++) {
      ReplicaNode r = replicas.get((start + i) % n);
      if (eligible(r, minLsn)) {
        return r;
      }
    }
    return null;
  }

  private static boolean eligible(ReplicaNode r, long minLsn) {
    if (!r.healthy) {
      return false;
    }
    long replayed = r.replayLsn();
    return minLsn == 0 || (replayed >= 0 && Long.compareUnsigned(replayed, minLsn) >= 0);
  }

  public void releaseReadOnlyConnection(Connection connection) throws SQLException {
    ReplicaNode replica = ReadOnlyConnections.replicaOf(connection);
    if (replica != null) {
      replica.outstanding.decrementAndGet();
    }
    connection.close();
  }

  private static void release(ReplicaNode replica, Connection c) {
    replica.outstanding.decrementAndGet();
    try {
      c.close();
    } catch (SQLException ignored) {
      // returned to a pool that will validate it
    }
  }

  private String entityOfTable(String table) {
    ShardingModel m = model;
    return m == null ? null : m.entityOfTable(table);
  }

  /** What the replica monitor last saw of every replica. */
  public List<ReplicaStatus> replicaStatus() {
    ShardMap map = routing.map();
    List<ReplicaStatus> all = new ArrayList<>();
    for (String shardId : map.shards().keySet()) {
      pools.replicas(map, shardId).forEach(r -> all.add(r.status()));
    }
    return all;
  }

  /** Reads served so far: by replicas, and by primaries (no replica, none healthy or caught up, or a TIME pin). */
  public long[] readCounts() {
    return new long[] {replicaReads.sum(), primaryReads.sum()};
  }

  public void checkReplicasNow() {
    monitor.checkAll();
  }

  public Consistency consistency() {
    return consistency;
  }

  /** After a scope's write transaction committed on a shard: pin what its later reads need. */
  public void pinAfterCommit(String scopeId, String shardId, ReadYourWritesTracking.Writes writes, long commitLsn) {
    long now = System.currentTimeMillis();
    Pin pin = new Pin(writes.lsn() ? commitLsn : 0, writes.windowMillis() > 0 ? now + writes.windowMillis() : 0,
        writes.maxWaitMillis(), now + Math.max(config.pinTtlMs(), writes.windowMillis()));
    pinStore.pin(scopeId, shardId, pin);
  }

  public PinStore pinStore() {
    return pinStore;
  }

  public Connection anyConnection() {
    String target = schemaTarget.get();
    return pools.primary(routing.map(), target != null ? target : routing.map().shards().keySet().iterator().next());
  }

  /** Runs {@code work} once per shard with Hibernate's "any connection" pointing at that shard. */
  public void onEveryShard(Consumer<String> work) {
    for (String shardId : routing.map().shards().keySet()) {
      schemaTarget.set(shardId);
      try {
        work.accept(shardId);
      } finally {
        schemaTarget.remove();
      }
    }
  }

  /** The {@code @GlobalIndex} lookup tables: maintained by event listeners, read by {@code findBy}. */
  public GlobalIndexes globalIndexes() {
    return globalIndexes;
  }

  /** The scatter-gather thread pool, started on first use so that runtimes that never scatter pay nothing. */
  public synchronized ScatterExecutor scatterExecutor() {
    if (scatterExecutor == null) {
      scatterExecutor = ScatterExecutor.forUnit(config.unitName(), config.shardwiseProperties(),
          routing.map().shards().size());
    }
    return scatterExecutor;
  }

  @Override
  public void close() {
    if (crossShard != null) {
      crossShard.close();
    }
    synchronized (this) {
      if (scatterExecutor != null) {
        scatterExecutor.close();
      }
    }
    monitor.close();
    try {
      maps.close();
    } catch (Exception e) {
      LOG.log(System.Logger.Level.WARNING, "Closing the shard map source failed: " + e.getMessage());
    }
    pools.close();
  }
}
