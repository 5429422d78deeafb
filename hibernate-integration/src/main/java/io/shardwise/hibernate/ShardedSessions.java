package io.shardwise.hibernate;

import io.shardwise.hibernate.globalindex.BackfillProgress;
import io.shardwise.hibernate.wiring.internal.ShardwiseComponents;
import io.shardwise.hibernate.metrics.SessionKind;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import io.shardwise.hibernate.metrics.ShardwiseObservations;
import io.shardwise.hibernate.operations.Hotspots;
import io.shardwise.hibernate.operations.OperationsPage;
import io.shardwise.hibernate.operations.internal.OperationsServer;
import io.shardwise.hibernate.operations.internal.Traffic;
import io.shardwise.hibernate.readwrite.Consistency;
import io.shardwise.hibernate.internal.ShardSessions;
import io.shardwise.hibernate.internal.ShardingModel;
import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.hibernate.resharding.ReshardTable;
import io.shardwise.hibernate.resharding.Resharding;
import io.shardwise.hibernate.resharding.ReshardingException;
import io.shardwise.hibernate.resharding.internal.Mover;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.internal.Router;
import io.shardwise.hibernate.scatter.ScatterQueries;
import io.shardwise.hibernate.scatter.ScatterQuery;
import io.shardwise.hibernate.scatter.internal.ParallelScatterQueries;
import io.shardwise.hibernate.scatter.internal.ScatterContext;
import io.shardwise.hibernate.spi.ShardwiseConnectionProvider;
import io.shardwise.hibernate.transaction.CrossShardAbortedException;
import io.shardwise.hibernate.transaction.CrossShardTransaction;
import io.shardwise.hibernate.transaction.CrossShardTransactions;
import io.shardwise.hibernate.transaction.ReferenceTables;
import io.shardwise.hibernate.transaction.Sagas;
import io.shardwise.hibernate.transaction.TransactionInDoubtException;
import io.shardwise.hibernate.transaction.internal.LockingTransaction;
import io.shardwise.hibernate.transaction.internal.LoggedSagas;
import jakarta.persistence.EntityManagerFactory;
import java.util.Set;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.engine.jdbc.connections.spi.MultiTenantConnectionProvider;
import org.hibernate.engine.spi.SessionFactoryImplementor;

/**
 * Sessions routed to shards, for one session factory.
 *
 * <pre>{@code
 * ShardedSessions shards = ShardedSessions.of(sessionFactory);
 * shards.forKey(merchantId).inTransaction(session -> session.persist(order));
 * Merchant m = shards.forKey(merchantId).fromSession(session -> session.find(Merchant.class, merchantId));
 * }</pre>
 */
public final class ShardedSessions {
  private final SessionFactory sessionFactory;
  private final ShardwiseComponents components;
  /** Where a session's connections come from; a scatter part that returns scalars takes its own there, sessionless. */
  private final ShardwiseConnectionProvider provider;
  private final Router router;
  private final ShardwiseMetrics metrics;
  /** Null when tracing is off. */
  private final ShardwiseObservations observations;
  private final Traffic traffic;
  /**
   * The route of a key whose reads and writes go to the same shard, one per shard: all such routes
   * of one shard are equal (immutable, no scope, no deadline), so {@link #forKey} hands out the
   * same one instead of allocating it per call.
   */
  private final java.util.concurrent.ConcurrentHashMap<String, ShardRoute> keyRoutes =
      new java.util.concurrent.ConcurrentHashMap<>();

  private ShardedSessions(SessionFactory sessionFactory, ShardwiseConnectionProvider provider,
      ShardwiseComponents components) {
    this.sessionFactory = sessionFactory;
    this.provider = provider;
    this.components = components;
    this.router = components.router();
    this.metrics = components.metrics();
    this.observations = components.observations();
    this.traffic = components.hotspots().traffic();
  }

  ShardwiseComponents components() {
    return components;
  }

  /** The sharded sessions of a session factory configured for Shardwise. */
  public static ShardedSessions of(SessionFactory sessionFactory) {
    SessionFactoryImplementor sf = sessionFactory.unwrap(SessionFactoryImplementor.class);
    MultiTenantConnectionProvider<?> provider = sf.getServiceRegistry().getService(MultiTenantConnectionProvider.class);
    if (!(provider instanceof ShardwiseConnectionProvider shardwise)) {
      throw new ShardingConfigurationException("This session factory is not configured for Shardwise: its"
          + " hibernate.multi_tenant_connection_provider is " + (provider == null ? "not set" : provider.getClass().getName())
          + ". Build it with Shardwise.configure() or set that property to " + ShardwiseConnectionProvider.class.getName());
    }
    return new ShardedSessions(sessionFactory, shardwise, shardwise.unwrap(ShardwiseComponents.class));
  }

  /** The same for a JPA {@code EntityManagerFactory} (Hibernate's). */
  public static ShardedSessions of(EntityManagerFactory entityManagerFactory) {
    return of(entityManagerFactory.unwrap(SessionFactory.class));
  }

  /**
   * The shard {@code session} works on: the shard it was opened on; for a session opened without a
   * shard, the shard of the first key it used (it binds there, see docs/routing.md); null while such
   * a session has used no key.
   */
  public static String shardOf(jakarta.persistence.EntityManager session) {
    String shard = ShardSessions.shardOf(session.unwrap(org.hibernate.engine.spi.SharedSessionContractImplementor.class));
    return ShardSessions.NO_SHARD.equals(shard) ? null : shard;
  }

  /** The shard that owns {@code key} under the current shard map. */
  public String shardFor(Object key) {
    return router.shardFor(key);
  }

  /** The shard that owns an integral key ({@code int} and {@code short} keys widen to the same shard); no boxing. */
  public String shardFor(long key) {
    return router.shardFor(key);
  }

  /**
   * Sessions on the shard that owns {@code key}; its {@link ShardRoute#readOnly()} sessions go to
   * the shard serving the key's reads (the same, unless an online move has switched them).
   */
  public ShardRoute forKey(Object key) {
    if (key == null) {
      metrics.refused(ShardwiseMetrics.Refusal.MISSING_KEY);
    }
    return keyRoute(router.shardFor(key, traffic), router.readShardFor(key));
  }

  /** Sessions on the shard that owns an integral key, routed without boxing it. */
  public ShardRoute forKey(long key) {
    String owner = router.shardFor(key, traffic);
    return keyRoute(owner, router.readShardFor(key, owner));
  }

  private ShardRoute keyRoute(String owner, String reader) {
    if (!owner.equals(reader)) {
      return new ShardRoute(sessionFactory, components.pins(), router, owner, reader, false, null, metrics,
          observations, SessionKind.KEY, components.readPath().hedges());
    }
    ShardRoute route = keyRoutes.get(owner);
    if (route == null) {
      route = keyRoutes.computeIfAbsent(owner, shard -> new ShardRoute(sessionFactory, components.pins(), router,
          shard, shard, false, null, metrics, observations, SessionKind.KEY, components.readPath().hedges()));
    }
    return route;
  }

  /** Sessions on a shard named directly (maintenance, per-shard jobs). */
  public ShardRoute forShard(String shardId) {
    return route(shardId, SessionKind.SHARD);
  }

  private ShardRoute route(String shardId, SessionKind kind) {
    router.map().shard(shardId);
    return new ShardRoute(sessionFactory, components.pins(), router, shardId, shardId, false, null, metrics, observations,
        kind, components.readPath().hedges());
  }

  /** Routes sessions opened the ordinary way on this thread to the owner of {@code key}, until closed. */
  public ShardContext.Scope contextForKey(Object key) {
    if (key == null) {
      metrics.refused(ShardwiseMetrics.Refusal.MISSING_KEY);
    }
    return ShardContext.use(router.shardFor(key));
  }

  /**
   * Sessions on the shard for a new {@code rootType}: an entity whose shard key is its
   * {@code @SnowflakeId}, or its {@code @GeneratedValue} id under {@code shardwise.ids.generated = cluster}. Shards take new roots in turn by weight (a smooth weighted round robin
   * over the ACTIVE shards of the current map; READ_ONLY and OFFLINE shards never); persisting a
   * root without an id in such a session gives it an id that routes to the session's shard, so
   * its co-located children can be persisted in the same session with the root's id as their key.
   *
   * <pre>{@code
   * Merchant m = shards.forNewRoot(Merchant.class).fromTransaction(session -> {
   *   Merchant merchant = new Merchant("Acme");
   *   session.persist(merchant);                                  // id routes to this shard
   *   session.persist(new Order(merchant.getId(), "first order")); // co-located, same shard
   *   return merchant;
   * });
   * }</pre>
   *
   * @throws IllegalArgumentException when {@code rootType} is not a sharded entity whose shard key
   *     is a {@code @SnowflakeId} id (the message says what to use instead)
   * @throws ShardUnavailableException when no shard can take new roots
   */
  public ShardRoute forNewRoot(Class<?> rootType) {
    String shardId = newRootShard(rootType);
    return new ShardRoute(sessionFactory, components.pins(), router, shardId, shardId, false, null, metrics,
        observations, SessionKind.NEW_ROOT, components.readPath().hedges());
  }

  /**
   * {@link #forNewRoot} for sessions opened the ordinary way (an injected {@code EntityManager},
   * Spring's transactions): routes them to the shard for a new {@code rootType} until the scope closes.
   */
  public ShardContext.Scope contextForNewRoot(Class<?> rootType) {
    return ShardContext.use(newRootShard(rootType));
  }

  private String newRootShard(Class<?> rootType) {
    io.shardwise.hibernate.internal.ShardedEntity model = rootType == null ? null : components.model().byClass(rootType);
    String name = rootType == null ? "null" : rootType.getSimpleName();
    if (model == null || model.reference()) {
      throw new IllegalArgumentException("forNewRoot(" + name + ".class): " + name + " is not a sharded entity of this"
          + " session factory" + (model != null ? " (it is a @ReferenceTable: write it with shards.referenceTables())" : ""));
    }
    if (!model.keyIsIdentifier()) {
      throw new IllegalArgumentException("forNewRoot(" + name + ".class): the shard key of " + name + " is "
          + model.keyAttribute() + ", not its id, so its shard follows from that key: open the session with"
          + " shards.forKey(" + model.keyAttribute() + ")");
    }
    org.hibernate.generator.Generator generator = sessionFactory.unwrap(SessionFactoryImplementor.class)
        .getMappingMetamodel().getEntityDescriptor(rootType).getGenerator();
    if (!(generator instanceof io.shardwise.hibernate.id.SnowflakeGenerator)
        && !(generator instanceof io.shardwise.hibernate.wiring.internal.ClusterIdGenerator)) {
      throw new IllegalArgumentException("forNewRoot(" + name + ".class): the id of " + name + " is neither a"
          + " @SnowflakeId nor a @GeneratedValue id under shardwise.ids.generated = cluster, so Shardwise cannot give"
          + " a new one an id that routes to the chosen shard. Annotate the id @SnowflakeId (or set"
          + " shardwise.ids.default = snowflake), keep its @GeneratedValue and set shardwise.ids.generated = cluster,"
          + " or set the id yourself and use shards.forKey(id)");
    }
    return components.newRoots().next();
  }

  /**
   * Queries that run on every shard in parallel and are merged: see {@link ScatterQuery}. Called
   * inside a unit of work of this API ({@code shards.forKey(k).inTransaction(session -> ...)}), or
   * inside a transaction of a framework that told Shardwise where its sessions are ({@link
   * #joinTransactionsFrom}; the Spring Boot integration does, for {@code @Transactional}), a query
   * joins that transaction as {@link #scatter(Session)} does: it sees the transaction's own writes.
   */
  public ScatterQueries scatter() {
    Session own = ShardSessions.inTransaction();
    return scatter(own != null ? own : components.frameworkTransactionSession());
  }

  /**
   * Tells this session factory's scatter queries where a framework keeps the session of the
   * transaction running on the calling thread (null outside one), so that {@link #scatter()} joins
   * it. The Spring Boot integration sets it to the session of Spring's JPA transaction; set it once.
   */
  public void joinTransactionsFrom(java.util.function.Supplier<Session> currentTransactionSession) {
    components.transactionSessions(currentTransactionSession);
  }

  /**
   * Scatter queries that join {@code session}'s transaction: each query first flushes the session's
   * pending changes, then runs the part of the session's own shard on the session (its connection,
   * inside its transaction, so that it sees the transaction's writes) and the other shards' parts as
   * {@link #scatter()} does. A {@code null} session joins nothing.
   */
  public ScatterQueries scatter(Session session) {
    return new ParallelScatterQueries(new ScatterContext(sessionFactory, components::scatterPlacement, this::shardIds,
        components::scatterExecutor, this::readForScatter, this::readOnConnectionForScatter,
        components.config().scatter(), router::checkedMap,
        type -> components.model().byClass(type), metrics, observations, session, components.scatterPlans(),
        this::openForScatter, shardId -> components.config().timeouts(shardId, false).connectionTimeoutMs(),
        this::serverStatementTimeoutMs));
  }

  /** The longest server-side statement_timeout of a shard's pools (primary and replicas); 0 when one has none. */
  private long serverStatementTimeoutMs(String shardId) {
    long primary = components.config().timeouts(shardId, false).statementTimeoutMs();
    long replica = components.config().timeouts(shardId, true).statementTimeoutMs();
    return primary == 0 || replica == 0 ? 0 : Math.max(primary, replica);
  }

  /**
   * One shard's part of a lazily merged scatter top-N: {@code work} executes it in a read-only
   * session that stays open for the merge to read. Timed per shard up to the end of {@code work} (the
   * shard's own latency; the merge reads rows already in memory), and observed until the part closes.
   */
  private io.shardwise.hibernate.scatter.internal.OpenPart openForScatter(String shardId,
      ShardwiseObservations.Observed scatter,
      java.util.function.Function<org.hibernate.Session, org.hibernate.ScrollableResults<Object[]>> work) {
    long started = System.nanoTime();
    ShardwiseObservations.Observed observed = scatter == null ? null : observations.scatterShard(scatter, shardId);
    try {
      org.hibernate.Session[] session = new org.hibernate.Session[1];
      org.hibernate.ScrollableResults<Object[]> cursor = route(shardId, SessionKind.SCATTER).readOnly()
          .fromSessionLeftOpen(s -> {
            session[0] = s;
            return work.apply(s);
          });
      long took = System.nanoTime() - started;
      return new io.shardwise.hibernate.scatter.internal.OpenPart(session[0], cursor, failure -> {
        metrics.scatterShard(shardId, took, failure != null);
        if (observed != null) {
          if (failure != null) {
            observed.error(failure);
          }
          observed.stop();
        }
      });
    } catch (RuntimeException | Error e) {
      metrics.scatterShard(shardId, System.nanoTime() - started, true);
      if (observed != null) {
        observed.error(e);
        observed.stop();
      }
      throw e;
    }
  }

  /** One shard's part of a scatter query, timed per shard, and observed as a child of {@code scatter} when traced. */
  private java.util.List<Object[]> readForScatter(String shardId, boolean inTransaction,
      ShardwiseObservations.Observed scatter,
      java.util.function.Function<org.hibernate.Session, java.util.List<Object[]>> work) {
    return scatterPart(shardId, scatter, route -> inTransaction ? route.fromTransaction(work) : route.fromSession(work));
  }

  /** The same, on a read-only connection of the shard with no Hibernate session (a part that returns scalars). */
  private java.util.List<Object[]> readOnConnectionForScatter(String shardId, ShardwiseObservations.Observed scatter,
      io.shardwise.hibernate.scatter.internal.ScatterContext.PartOnConnection work) {
    return scatterPart(shardId, scatter, route -> route.fromReadOnlyConnection(provider, work::read));
  }

  private java.util.List<Object[]> scatterPart(String shardId, ShardwiseObservations.Observed scatter,
      java.util.function.Function<ShardRoute, java.util.List<Object[]>> part) {
    long started = System.nanoTime();
    boolean failed = true;
    ShardwiseObservations.Observed observed = scatter == null ? null : observations.scatterShard(scatter, shardId);
    try {
      java.util.List<Object[]> rows = part.apply(route(shardId, SessionKind.SCATTER).readOnly());
      failed = false;
      return rows;
    } catch (RuntimeException | Error e) {
      if (observed != null) {
        observed.error(e);
      }
      throw e;
    } finally {
      metrics.scatterShard(shardId, System.nanoTime() - started, failed);
      if (observed != null) {
        observed.stop();
      }
    }
  }

  /**
   * The entity whose {@code @GlobalIndex} attribute holds {@code value}: one index lookup on the
   * value's shard, then a load from the entity's shard, verified to really hold the value.
   */
  public <T> java.util.Optional<T> findBy(Class<T> type, String attribute, Object value) {
    return findAllBy(type, attribute, value).stream().findFirst();
  }

  /** Every entity whose {@code @GlobalIndex} attribute holds {@code value} (verified, like {@link #findBy}). */
  public <T> java.util.List<T> findAllBy(Class<T> type, String attribute, Object value) {
    return components.globalIndexes().find(type, attribute, value);
  }

  /**
   * Indexes entities stored before their {@code @GlobalIndex} existed, shard by shard in batches,
   * reporting progress after each batch; safe to run again. Returns how many entities it indexed.
   */
  public long backfillGlobalIndex(Class<?> type, String attribute, java.util.function.Consumer<BackfillProgress> progress) {
    return components.globalIndexes().backfill(type, attribute, progress);
  }

  public Set<String> shardIds() {
    return router.map().shards().keySet();
  }

  public ShardMap shardMap() {
    return router.map();
  }

  /**
   * Where the routed sessions go, per shard, bucket and key, and which shard key columns look like
   * sharding anti-patterns (docs/operations.md, "Hotspots").
   */
  public Hotspots hotspots() {
    return components.hotspots();
  }

  /**
   * Starts the read-only operations page on {@code 127.0.0.1:port} (0 picks a free port): the shard
   * map as a bucket grid, nodes with role and lag, in-doubt transactions, sagas and moves in flight,
   * hot keys. It refreshes itself from {@code /api/state}. Close it to stop serving.
   *
   * @throws io.shardwise.hibernate.operations.OperationsPageException when the port is taken
   */
  public OperationsPage operationsPage(int port) {
    return operationsPage(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), port));
  }

  /**
   * The operations page on any address, e.g. to reach it from other hosts. It shows server
   * addresses and transaction ids but no credentials; put it behind your own access control before
   * binding it beyond the loopback interface.
   */
  public OperationsPage operationsPage(java.net.InetSocketAddress address) {
    return OperationsServer.start(address, new OperationsServer.Sources(components.config().unitName(), router::map,
        components.hotspots(), this::nodeStatus, this::replicaStatus, components.pools()::primary,
        components.controlDatabase() == null ? null
            : () -> components.controlDatabase().openConnection("shardwise-operations-page")));
  }

  /** Read-your-writes scopes and consistency tokens. */
  public Consistency consistency() {
    return components.consistency();
  }

  /** What the replica monitor last saw of every replica. */
  /**
   * The circuit breaker of every server in use: each shard's primary (once a session used it) and
   * every replica, with its state, its consecutive failures and the last of them
   * (docs/failure-handling.md).
   */
  public java.util.List<NodeStatus> nodeStatus() {
    java.util.List<NodeStatus> all = new java.util.ArrayList<>(components.pools().nodeStatus());
    all.addAll(components.readPath().replicaBreakers());
    return all;
  }

  public java.util.List<ReplicaStatus> replicaStatus() {
    return components.readPath().replicaStatus();
  }

  /** Runs a replica check now instead of waiting for the monitor's next round. */
  public void checkReplicasNow() {
    components.readPath().checkReplicasNow();
  }

  /** Read-only connections served so far: {@code [by replicas, by primaries]}. */
  public long[] readCounts() {
    return components.readPath().readCounts();
  }

  /**
   * Runs {@code work} over every shard it touches as one atomic transaction (two-phase commit): all
   * shards commit or none does. Needs a control database ({@code shardwise.control.url}) for the
   * coordinators' heartbeats that recovery reads, and PostgreSQL 17 or later on every shard. Read the
   * rows the work changes with {@link CrossShardTransaction#lock}. See {@link CrossShardTransaction},
   * also for which exception means what.
   *
   * @throws RuntimeException the work's own exception, unchanged, after every shard was rolled back
   * @throws CrossShardAbortedException if a shard answered the work, a flush, a prepare or a commit
   *     with an error (lock timeout, deadlock, serialization failure, constraint...), could not be
   *     reached before the decision, or recovery had ended the transaction: rolled back everywhere,
   *     the failure is the cause
   * @throws io.shardwise.hibernate.resharding.BucketMovedException if a move's fence refused a
   *     write: rolled back everywhere, the router refreshed; retry
   * @throws TransactionInDoubtException if the deciding shard's commit could not be confirmed; recovery
   *     settles it
   * @throws ShardwiseException if, after the commit, a prepared shard is found finished against the
   *     decision by someone else (the message names the shard to repair)
   */
  public void atomically(java.util.function.Consumer<CrossShardTransaction> work) {
    fromAtomically(tx -> {
      work.accept(tx);
      return null;
    });
  }

  /** The same as {@link #atomically}, returning a value. */
  public <R> R fromAtomically(java.util.function.Function<CrossShardTransaction, R> work) {
    return counted("atomically", opener -> components.crossShard("A cross-shard transaction (atomically)").twoPhase()
        .execute(opener, tx -> work.apply(new LockingTransaction(tx, type -> components.model().byClass(type)))));
  }

  /**
   * Runs a two-phase commit with a session opener that notes the shards it touches, and counts its
   * outcome on each of them: committed when it returns, in doubt for {@link TransactionInDoubtException},
   * aborted for anything else (every shard was rolled back). When traced, the transaction ({@code what})
   * is observed with one child per participant.
   */
  private <R> R counted(String what,
      java.util.function.Function<java.util.function.Function<String, org.hibernate.Session>, R> twoPhase) {
    // the opener runs on this thread, inside twoPhase: a plain sorted set will do
    Set<String> touched = new java.util.TreeSet<>();
    ShardwiseObservations.Observed observed = observations == null ? null : observations.crossShard(what);
    java.util.Map<String, ShardwiseObservations.Observed> participants =
        observed == null ? null : new java.util.concurrent.ConcurrentHashMap<>();
    ShardwiseMetrics.CrossShardOutcome outcome = ShardwiseMetrics.CrossShardOutcome.ABORTED;
    Throwable failure = null;
    try {
      R result = twoPhase.apply(shardId -> {
        if (touched.add(shardId) && participants != null) {
          participants.put(shardId, observations.participant(observed, shardId));
        }
        return forShard(shardId).openSession();
      });
      outcome = ShardwiseMetrics.CrossShardOutcome.COMMITTED;
      return result;
    } catch (TransactionInDoubtException e) {
      outcome = ShardwiseMetrics.CrossShardOutcome.IN_DOUBT;
      failure = e;
      throw e;
    } catch (RuntimeException | Error e) {
      failure = e;
      throw e;
    } finally {
      metrics.crossShardOutcome(outcome, touched);
      if (observed != null) {
        endObservation(observed, participants, outcome.tag(), failure);
      }
    }
  }

  /**
   * Stops a cross-shard transaction's observation and its participants' with the outcome; the failure
   * goes on the transaction, and on the participant it names when it is a shard that was unavailable.
   */
  private static void endObservation(ShardwiseObservations.Observed transaction,
      java.util.Map<String, ShardwiseObservations.Observed> participants, String outcome, Throwable failure) {
    String unavailable = null;
    for (Throwable t = failure; t != null && unavailable == null; t = t.getCause() == t ? null : t.getCause()) {
      unavailable = t instanceof ShardUnavailableException u ? u.shardId() : null;
    }
    for (java.util.Map.Entry<String, ShardwiseObservations.Observed> participant : participants.entrySet()) {
      participant.getValue().outcome(outcome);
      if (participant.getKey().equals(unavailable)) {
        participant.getValue().error(failure);
      }
      participant.getValue().stop();
    }
    transaction.outcome(outcome);
    if (failure != null) {
      transaction.error(failure);
    }
    transaction.stop();
  }

  /** The cross-shard transactions of this session factory: recovery on demand. */
  public CrossShardTransactions transactions() {
    return () -> components.crossShard("Cross-shard recovery").recoveryReport();
  }

  /** Sagas: steps with compensations, logged in the control database. */
  public Sagas sagas() {
    return new LoggedSagas(components.crossShard("A saga").sagas(), shardId -> forShard(shardId).openSession());
  }

  /** Writes to {@code @ReferenceTable} entities on every shard at once, and checks that the copies agree. */
  public ReferenceTables referenceTables() {
    return components.referenceTables(sessionFactory, runner -> counted("reference-table write", runner));
  }

  /**
   * Online moves of buckets between shards (needs a control database). Requests that name no
   * tables move the tables of this session factory's entities: every table of a sharded entity by
   * its shard key column, and the reference tables copied whole to a target that lacks them.
   */
  public Resharding resharding() {
    return new Mover(components.config(), () -> modelTables());
  }

  /**
   * The table of every entity of this session factory: a sharded entity's with its shard key column
   * and key type, a {@code @ReferenceTable} entity's without (what seed scripts and online moves
   * route rows by). Tables of a sharded entity that hold no key column are not listed.
   */
  public java.util.List<ReshardTable> entityTables() {
    return components.model().tables().stream().map(t -> t.reference() ? ReshardTable.reference(t.table())
        : ReshardTable.sharded(t.table(), t.keyColumn(), t.keyType())).toList();
  }

  private java.util.List<ReshardTable> modelTables() {
    ShardingModel model = components.model();
    if (!model.tablesWithoutShardKey().isEmpty()) {
      throw new ReshardingException("Online resharding cannot carry these tables, which hold no shard key column: "
          + model.tablesWithoutShardKey() + ". Map them so that each row holds its shard key (e.g. a @CoLocated entity"
          + " with its own @ShardKey instead of an element collection).");
    }
    java.util.List<ReshardTable> tables = new java.util.ArrayList<>(entityTables());
    components.globalIndexes().lookupTables().forEach((table, type) -> {
      if (type != io.shardwise.hibernate.routing.ShardKeyType.STRING) {
        throw new ReshardingException("The @GlobalIndex lookup table " + table + " indexes a " + type + " attribute;"
            + " online moves carry lookup tables of String attributes only so far. Move with the command line,"
            + " naming the tables, after rebuilding that index (backfillGlobalIndex) once the move completes.");
      }
      tables.add(ReshardTable.sharded(table, "value", type));
    });
    return tables;
  }

  /**
   * Flyway migrations of every shard of this session factory ({@code shardwise.migrations.*}): the
   * same scripts on every primary, per-shard status, a stop at the first failing shard. After each
   * run the version gate reads the versions again (with {@code mark-unavailable}, shards brought level
   * become available). Needs Flyway on the class path.
   */
  public io.shardwise.hibernate.migrations.Migrations migrations() {
    return components.migrations();
  }

  public SessionFactory sessionFactory() {
    return sessionFactory;
  }
}
