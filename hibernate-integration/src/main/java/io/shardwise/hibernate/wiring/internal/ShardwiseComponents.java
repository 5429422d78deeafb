package io.shardwise.hibernate.wiring.internal;

import io.shardwise.hibernate.globalindex.internal.GlobalIndexes;
import io.shardwise.hibernate.internal.ShardPools;
import io.shardwise.hibernate.internal.ShardSessions;
import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.ShardingModel;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.internal.query.ShardKeyValues;
import io.shardwise.hibernate.metrics.SessionKind;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import io.shardwise.hibernate.metrics.ShardwiseObservations;
import io.shardwise.hibernate.metrics.internal.Metrics;
import io.shardwise.hibernate.metrics.internal.Observations;
import io.shardwise.hibernate.migrations.Migrations;
import io.shardwise.hibernate.migrations.internal.SchemaGate;
import io.shardwise.hibernate.migrations.internal.ShardMigrations;
import io.shardwise.hibernate.operations.internal.CountedHotspots;
import io.shardwise.hibernate.readwrite.Consistency;
import io.shardwise.hibernate.readwrite.InMemoryPinStore;
import io.shardwise.hibernate.readwrite.internal.ReadPath;
import io.shardwise.hibernate.readwrite.internal.ReadYourWritesPins;
import io.shardwise.hibernate.readwrite.internal.SignedTokenConsistency;
import io.shardwise.hibernate.routing.ControlDatabase;
import io.shardwise.hibernate.routing.ControlDatabaseShardMapSource;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardMapSource;
import io.shardwise.hibernate.routing.ShardingStrategies;
import io.shardwise.hibernate.routing.StaticShardMapSource;
import io.shardwise.hibernate.routing.internal.NewRootPlacement;
import io.shardwise.hibernate.routing.internal.Router;
import io.shardwise.hibernate.scatter.internal.ScatterExecutor;
import io.shardwise.hibernate.scatter.internal.ScatterPlanner;
import io.shardwise.hibernate.transaction.ReferenceTables;
import io.shardwise.hibernate.transaction.internal.AtomicReferenceTables;
import io.shardwise.hibernate.transaction.internal.CrossShardService;
import io.shardwise.hibernate.transaction.internal.ShardAccess;
import java.sql.Connection;
import java.util.function.Consumer;
import java.util.function.Function;
import org.hibernate.event.service.spi.EventListenerRegistry;
import org.hibernate.event.spi.EventType;

/**
 * The one place Shardwise's components are built and connected, for one session factory. Each
 * component is given only what it uses:
 *
 * <ul>
 *   <li>{@link Router}: the shard map source and the strategy factory;</li>
 *   <li>{@link ShardPools} (primaries): the configuration and the router's current map;</li>
 *   <li>{@link ReadPath} (replicas, their selector and monitor): the configuration, the primaries
 *       and the router's current map;</li>
 *   <li>{@link ReadYourWritesPins} and {@link Consistency}: the pin store;</li>
 *   <li>{@link GlobalIndexes} and the {@link ShardGuard}: the router, the primaries and the sharding
 *       model;</li>
 *   <li>{@link CrossShardService}: a {@link ShardAccess} (router + primaries);</li>
 *   <li>{@link ScatterExecutor}: started on first use;</li>
 *   <li>{@link SchemaGate}: the configuration and the router's current map, checked before anything
 *       else starts;</li>
 *   <li>the pools, the read path and the entry points: the {@link ShardwiseMetrics} recorder, chosen
 *       once (a do-nothing one without a meter registry).</li>
 * </ul>
 *
 * The connection provider builds this when Hibernate configures it and hands it out through
 * {@code unwrap(ShardwiseComponents.class)}; no public API type returns it.
 */
public final class ShardwiseComponents implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("io.shardwise");

  private final ShardwiseConfig config;
  private final ControlDatabase control;
  private final ShardMapSource maps;
  private final Router router;
  private final ShardPools pools;
  private final ThreadLocal<String> schemaTarget = new ThreadLocal<>();
  private volatile ShardingModel model;
  private final ReadPath readPath;
  private final InMemoryPinStore pinStore = new InMemoryPinStore();
  private final ReadYourWritesPins pins;
  private final Consistency consistency;
  private final GlobalIndexes globalIndexes;
  private final ShardKeyValues keyValues;
  private final NewRootPlacement newRoots;
  private volatile CrossShardService crossShard;
  private ScatterExecutor scatterExecutor;
  private final io.shardwise.hibernate.scatter.internal.ScatterPlans scatterPlans =
      new io.shardwise.hibernate.scatter.internal.ScatterPlans();
  private volatile java.util.function.Supplier<org.hibernate.Session> transactionSessions = () -> null;
  private final ShardwiseMetrics metrics;
  private final ShardwiseObservations observations;
  private final SchemaGate schemaGate;
  private final CountedHotspots hotspots;
  private final FenceRefusalRehearsal refusalRehearsal = new FenceRefusalRehearsal();
  /** The session factory, once Hibernate has integrated this unit: for the refusal rehearsal. */
  private volatile org.hibernate.SessionFactory sessionFactory;

  /** How long a scrape reuses a shard's count of prepared transactions before asking its primary again. */
  private static final long PREPARED_CACHE_MILLIS = 2_000;

  private ShardwiseComponents(ShardwiseConfig config, ControlDatabase control, ShardMapSource maps) {
    this.metrics = Metrics.of(config.meterRegistry());
    this.config = config;
    this.control = control;
    this.maps = maps;
    this.router = Router.following(maps, map -> ShardingStrategies.build(config.strategy(), map),
        config.unitName());
    this.schemaGate = SchemaGate.check(config, router::map);
    metrics.watchShardMap(router::map);
    this.observations = Observations.of(config.observationRegistry(), router::map);
    maps.addListener(metrics::shardMapPublished);
    this.pools = new ShardPools(config, router::map, metrics);
    // a move's target, before its write switch: connections opened and planned, a refusal rehearsed once
    maps.addStagedListener(next -> pools.warmFor(router.map(), next, shardKeyColumns(),
        shardId -> refusalRehearsal.runOnce(sessionFactory, shardId, version -> router.map())));
    metrics.watchPreparedTransactions(pools::primary, PREPARED_CACHE_MILLIS);
    this.pins = new ReadYourWritesPins(pinStore, config.pinTtlMs());
    metrics.watchPins(pinStore::livePinsOn);
    this.consistency = new SignedTokenConsistency(pinStore, config.rywSecret(), config.rywAcceptedSecret(),
        config.unitName(), config.pinTtlMs());
    this.globalIndexes = new GlobalIndexes(router, pools, this::model, config.ddlCreate());
    this.keyValues = new ShardKeyValues(router, metrics);
    this.newRoots = new NewRootPlacement(router, config.unitName());
    this.readPath = ReadPath.start(config, pools, router::map, this::entityOfTable, metrics);
    this.hotspots = CountedHotspots.start(whyNoHotspots(config), router.map().bucketCount(),
        config.hotspots().sampleEvery(), router::map, this::shardKeyColumns, pools::primary,
        config.strategy().kind() == ShardingStrategies.Kind.RANGE);
  }

  /**
   * Whether this unit has rehearsed, before its first write switch, a write refused by a move's
   * fence (on the move's target, once its connections were warmed) and it ended as a refused write
   * does: for tests and diagnostics.
   */
  public boolean refusalRehearsed() {
    return refusalRehearsal.translated();
  }

  /** Null when routed sessions are counted per bucket, else why not (the hotspot report's refusal). */
  private static String whyNoHotspots(ShardwiseConfig config) {
    if (!config.hotspots().enabled()) {
      return "Hotspot counting is off in persistence unit '" + config.unitName() + "' ("
          + io.shardwise.hibernate.ShardwiseSettings.HOTSPOTS_ENABLED + " = false): set it to true to count routed"
          + " sessions per bucket and key";
    }
    if (config.strategy().kind() != ShardingStrategies.Kind.BUCKET) {
      return "Persistence unit '" + config.unitName() + "' routes with the " + config.strategy().kind()
          + " strategy, which places keys without buckets, so the hotspot report (per bucket) is not kept. Compare"
          + " shards with the shardwise.sessions meter instead, or use the bucket strategy";
    }
    return null;
  }

  /** {@code [table, key column]} of every sharded (not reference) table of the model. */
  private java.util.List<String[]> shardKeyColumns() {
    return model().tables().stream().filter(t -> !t.reference() && t.keyColumn() != null)
        .map(t -> new String[] {t.table(), t.keyColumn()}).toList();
  }

  /** Hotspot counters, the key summary and the shard key check. */
  public CountedHotspots hotspots() {
    return hotspots;
  }

  public static ShardwiseComponents start(ShardwiseConfig config) {
    if (config.controlUrl() == null) {
      return new ShardwiseComponents(config, null, new StaticShardMapSource(config.staticMap()));
    }
    ControlDatabase control = config.controlDatabase();
    if (config.ddlCreate()) {
      control.createSchema();
    } else {
      control.checkSchema();
    }
    if (config.controlInitialize()) {
      control.initialize(config.staticMap());
    }
    if (config.routerLeaseMs() > 0) {
      control.prepareRouterTable(config.ddlCreate());
    }
    ShardMapSource source = ControlDatabaseShardMapSource.builder(control)
        .versionCheckInterval(java.time.Duration.ofMillis(config.controlVersionCheckIntervalMs()))
        .routerLease(java.time.Duration.ofMillis(config.routerLeaseMs()), config.unitName()).start();
    ShardwiseComponents components;
    try {
      components = new ShardwiseComponents(config, control, source);
      components.metrics.watchSagas(() -> control.openConnection("shardwise-metrics"), PREPARED_CACHE_MILLIS);
    } catch (RuntimeException e) {
      source.close();
      throw e;
    }
    try {
      components.crossShard = CrossShardService.startIfConfigured(config, components.shardAccess(),
          components.pools.housekeeper());
    } catch (RuntimeException e) {
      components.close();
      throw e;
    }
    return components;
  }

  private ShardAccess shardAccess() {
    return new ShardAccess() {
      @Override
      public String shardFor(Object key) {
        return router.shardFor(key);
      }

      @Override
      public ShardMap shardMap() {
        return router.map();
      }

      @Override
      public ShardMap refreshMap(long atLeastVersion) {
        return router.refresh(atLeastVersion);
      }

      @Override
      public Connection primaryConnection(String shardId) {
        return pools.primary(shardId);
      }

      @Override
      public void dropIdlePrimaryConnections(String shardId) {
        pools.evictIdlePrimary(shardId);
      }

      @Override
      public String unitName() {
        return config.unitName();
      }
    };
  }

  public ShardwiseConfig config() {
    return config;
  }

  public Router router() {
    return router;
  }

  /** Where the router's maps come from (the control database's follower, or a fixed map). */
  public ShardMapSource shardMapSource() {
    return maps;
  }

  /** The schema version gate: which shards it keeps unavailable (none unless {@code mark-unavailable}). */
  public SchemaGate schemaGate() {
    return schemaGate;
  }

  /** Flyway migrations of every shard of the current map; the gate reads the versions again after each run. */
  public Migrations migrations() {
    return ShardMigrations.of(config, router::map, schemaGate::recheck);
  }

  /** Where new roots go: a weighted round robin over the ACTIVE shards. */
  public NewRootPlacement newRoots() {
    return newRoots;
  }

  public ShardPools pools() {
    return pools;
  }

  /** The recorder chosen once at start: Micrometer meters, or the do-nothing one when no registry is configured. */
  public ShardwiseMetrics metrics() {
    return metrics;
  }

  /** Where units of work, scatter queries and cross-shard transactions are observed; null when tracing is off. */
  public ShardwiseObservations observations() {
    return observations;
  }

  /** A connection for a session opened without a shard: reference tables only (see {@link ReadPath#noShardConnection}). */
  public Connection noShardConnection() {
    return readPath.noShardConnection(model());
  }

  public ReadPath readPath() {
    return readPath;
  }

  /** Checks shard key values against the shard of the session that uses them. */
  public ShardKeyValues keyValues() {
    return keyValues;
  }

  public ReadYourWritesPins pins() {
    return pins;
  }

  public Consistency consistency() {
    return consistency;
  }

  /** The control database, or null for a static map. */
  public ControlDatabase controlDatabase() {
    return control;
  }

  /** Cross-shard transactions (two-phase commit, sagas); fails with the setting to add when there is no control database. */
  public CrossShardService crossShard(String what) {
    CrossShardService service = crossShard;
    if (service == null) {
      throw CrossShardService.notConfigured(config, what);
    }
    return service;
  }

  /** The {@code @GlobalIndex} lookup tables: maintained by event listeners, read by {@code findBy}. */
  public GlobalIndexes globalIndexes() {
    return globalIndexes;
  }

  /** The scatter-gather thread pool, started on first use so that session factories that never scatter pay nothing. */
  public synchronized ScatterExecutor scatterExecutor() {
    if (scatterExecutor == null) {
      scatterExecutor = ScatterExecutor.forUnit(config.unitName(),
          config.scatter().threadsFor(router.map().shards().size()));
    }
    return scatterExecutor;
  }

  /**
   * The session of the transaction a framework runs on this thread (Spring's {@code @Transactional}),
   * for scatter queries to join; answers null outside one. Set once by the integration.
   */
  public void transactionSessions(java.util.function.Supplier<org.hibernate.Session> current) {
    this.transactionSessions = java.util.Objects.requireNonNull(current, "current");
  }

  /** The framework's transaction session on this thread, if it is open and its transaction active; else null. */
  public org.hibernate.Session frameworkTransactionSession() {
    return io.shardwise.hibernate.internal.ShardSessions.ifTransactionActive(transactionSessions.get());
  }

  /** The scatter queries' plans by query text (see {@link io.shardwise.hibernate.scatter.internal.ScatterPlans}). */
  public io.shardwise.hibernate.scatter.internal.ScatterPlans scatterPlans() {
    return scatterPlans;
  }

  /** Where a scatter query finds an entity class: a reference table, a co-location group, or nowhere (null). */
  public String scatterPlacement(Class<?> type) {
    ShardedEntity entity = model().byClass(type);
    return entity == null ? null : entity.reference() ? ScatterPlanner.REFERENCE : entity.group();
  }

  // ---- the session factory's model and listeners, installed by the integrator ----------------

  public void installModel(ShardingModel model) {
    this.model = model;
    if (config.hotspots().keyCheckAtStartup()) {
      Thread check = new Thread(hotspots::logShardKeyWarnings, "shardwise-key-check-" + config.unitName());
      check.setDaemon(true);
      check.start();
    }
  }

  public ShardingModel model() {
    ShardingModel m = model;
    if (m == null) {
      throw new IllegalStateException("The sharding model is not installed yet: the session factory has not"
          + " finished starting (is io.shardwise.hibernate.spi.ShardwiseIntegrator on the classpath?)");
    }
    return m;
  }

  private String entityOfTable(String table) {
    ShardingModel m = model;
    return m == null ? null : m.entityOfTable(table);
  }

  /**
   * The write guard first (so that nothing reaches the database for a refused write), the global
   * indexes after it (index rows are written only for writes it let through).
   */
  public void registerListeners(EventListenerRegistry listeners, org.hibernate.SessionFactory sessionFactory) {
    this.sessionFactory = sessionFactory;
    NoShardReferenceWrites noShardReferenceWrites = new NoShardReferenceWrites(referenceTables(sessionFactory,
        runner -> runner.apply(shardId -> ShardSessions.open(sessionFactory, shardId, false, metrics, SessionKind.SHARD))));
    keyValues.refuseBindingWhen(noShardReferenceWrites::holdsWrites);
    ShardGuard guard = new ShardGuard(router, this::model, keyValues, metrics, noShardReferenceWrites, newRoots);
    listeners.prependListeners(EventType.PERSIST, guard);
    listeners.prependListeners(EventType.PERSIST_ONFLUSH, guard);
    listeners.prependListeners(EventType.MERGE, guard);
    listeners.prependListeners(EventType.DELETE, guard);
    listeners.prependListeners(EventType.PRE_INSERT, guard);
    listeners.prependListeners(EventType.PRE_UPDATE, guard);
    listeners.prependListeners(EventType.PRE_DELETE, guard);
    listeners.prependListeners(EventType.LOAD, guard);
    // in front of the guard: keys that follow an association are filled before it checks them
    KeyPathFiller keyPaths = new KeyPathFiller(this::model);
    listeners.prependListeners(EventType.PERSIST, keyPaths);
    listeners.prependListeners(EventType.PERSIST_ONFLUSH, keyPaths);
    listeners.prependListeners(EventType.MERGE, keyPaths);
    listeners.prependListeners(EventType.PRE_INSERT, keyPaths);
    listeners.prependListeners(EventType.PRE_UPDATE, keyPaths);

    globalIndexes.bind(sessionFactory);
    listeners.appendListeners(EventType.PRE_INSERT, globalIndexes);
    listeners.appendListeners(EventType.PRE_UPDATE, globalIndexes);
    listeners.appendListeners(EventType.POST_COMMIT_UPDATE, globalIndexes);
    listeners.appendListeners(EventType.POST_COMMIT_DELETE, globalIndexes);
  }

  /**
   * Writes to {@code @ReferenceTable} entities on every shard in one two-phase transaction.
   * {@code twoPhase} runs the transaction it is given with a session opener of its choice (the
   * entry points count the outcome on the shards it opened).
   */
  public ReferenceTables referenceTables(org.hibernate.SessionFactory sessionFactory,
      Consumer<Function<Function<String, org.hibernate.Session>, Object>> twoPhase) {
    return new AtomicReferenceTables(sessionFactory, () -> router.map().shards().keySet(), this::model, pools,
        work -> twoPhase.accept(opener -> crossShard("A reference-table write").twoPhase().execute(opener, tx -> {
          work.accept(tx);
          return null;
        })));
  }

  // ---- schema management: Hibernate's "any connection" pointed at one shard at a time ---------

  public Connection anyConnection() {
    String target = schemaTarget.get();
    return pools.primary(target != null ? target : router.map().shards().keySet().iterator().next());
  }

  /** Runs {@code work} once per shard with Hibernate's "any connection" pointing at that shard. */
  public void onEveryShard(Consumer<String> work) {
    for (String shardId : router.map().shards().keySet()) {
      schemaTarget.set(shardId);
      try {
        work.accept(shardId);
      } finally {
        schemaTarget.remove();
      }
    }
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
    readPath.close();
    try {
      maps.close();
    } catch (Exception e) {
      LOG.log(System.Logger.Level.WARNING, "Closing the shard map source failed: " + e.getMessage());
    }
    pools.close();
  }
}
