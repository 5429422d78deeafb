package io.shardwise.hibernate.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import com.zaxxer.hikari.metrics.MetricsTrackerFactory;
import io.shardwise.hibernate.ShardSaturatedException;
import io.shardwise.hibernate.ShardUnavailableException;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.internal.jdbc.NodeBreaker;
import io.shardwise.hibernate.internal.jdbc.ShardConnection;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardState;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One HikariCP pool per shard primary, created on first use so that a shard that is down when the
 * application starts does not stop the others from serving. A pool is replaced when the shard map
 * gives its shard a new primary URL: the old pool is retired, not closed under its borrowers
 * ({@link RetiringPool}), and closed by a daemon thread once every connection it lent has come
 * back. (Replica pools belong to the read path, which retires a dropped replica's pool here.)
 */
public final class ShardPools implements PrimaryConnections, AutoCloseable {
  private static final System.Logger LOG = System.getLogger("io.shardwise");
  /** How often retired pools are checked for returned connections. */
  private static final long DRAIN_CHECK_MS = 50;
  /** How long the breaker's probe waits for the server's answer. */
  static final int PROBE_TIMEOUT_SECONDS = 1;

  private final ShardwiseConfig config;
  private final Supplier<ShardMap> maps;
  private final ShardwiseMetrics metrics;
  private final Map<String, RetiringPool> pools = new ConcurrentHashMap<>();
  private final List<RetiringPool> retired = new CopyOnWriteArrayList<>();
  private final PoolHousekeeping housekeeping;
  private ScheduledExecutorService drainer;

  /** @param maps the shard map routing uses now (read on every checkout: one volatile read) */
  public ShardPools(ShardwiseConfig config, Supplier<ShardMap> maps) {
    this(config, maps, ShardwiseMetrics.none());
  }

  /** @param metrics gives each primary pool HikariCP's metrics tracker, tagged with its shard */
  public ShardPools(ShardwiseConfig config, Supplier<ShardMap> maps, ShardwiseMetrics metrics) {
    this.config = config;
    this.maps = maps;
    this.metrics = metrics;
    this.housekeeping = new PoolHousekeeping(config.unitName());
  }

  /**
   * The scheduler of HikariCP's housekeeping for every pool of this persistence unit (give it to
   * {@link #newPool}): shut down by {@link #close()}, so close the other pools that use it first.
   */
  public ScheduledExecutorService housekeeper() {
    return housekeeping.executor();
  }

  /** A connection to the primary of {@code shardId} as the current map describes it. */
  @Override
  public Connection primary(String shardId) {
    return primary(maps.get(), shardId);
  }

  /** A connection to the primary of {@code shardId} as {@code map} describes it. */
  public Connection primary(ShardMap map, String shardId) {
    return checkout(map, shardId);
  }

  /**
   * A connection to the primary of {@code shardId} for a Hibernate session: counted into the
   * shard's bulkhead (refused at once with {@link ShardSaturatedException} when
   * {@code shardwise.bulkhead.max_concurrent} units of work are in) until {@link #leave} is called
   * for it, and wrapped as a {@link ShardConnection} that reports to the breaker of the pool it came
   * from and names that pool's server when it fails.
   *
   * <p>The hot path: one map lookup for the pool, whose last checked shard map stands in for the
   * map checks while the map is unchanged, one atomic counter (the bulkhead, which also keeps a
   * replaced pool open under the borrow), the breaker's volatile read, HikariCP's checkout.
   */
  public Connection sessionConnection(String shardId) {
    while (true) {
      RetiringPool pool = current(maps.get(), shardId);
      if (!pool.enterSession(config.bulkheadMaxConcurrent())) {
        throw saturated(shardId, "the limit of " + config.bulkheadMaxConcurrent() + " concurrent units of work on it ("
            + ShardwiseSettings.BULKHEAD_MAX_CONCURRENT + ") is reached", null);
      }
      Connection c;
      try {
        c = lend(pool, shardId, true);
      } catch (RuntimeException e) {
        pool.leaveSession();
        throw e;
      }
      if (c != null) {
        return ShardConnection.wrap(c, shardId, pool.socketTimeoutMs(), pool.breaker(), pool.statements(), pool);
      }
      // retired between the lookup and the borrow: the map holds its successor now
      pool.leaveSession();
    }
  }

  /**
   * Counts a session's unit of work out of the bulkhead of the pool {@code connection} came from
   * ({@link #sessionConnection}); any other connection is left alone.
   */
  public void leave(Connection connection) {
    if (connection instanceof ShardConnection shard && shard.lender() instanceof RetiringPool pool) {
      pool.leaveSession();
    }
  }

  private Connection checkout(ShardMap map, String shardId) {
    while (true) {
      RetiringPool pool = current(map, shardId);
      Connection c = lend(pool, shardId, false);
      if (c != null) {
        return c;
      }
      // retired between the lookup and the borrow: the map holds its successor now
    }
  }

  /** The pool of {@code shardId}'s primary as {@code map} describes it; created or replaced when needed. */
  private RetiringPool current(ShardMap map, String shardId) {
    RetiringPool pool = pools.get(shardId);
    if (pool != null && pool.currentIn(map)) {
      return pool;
    }
    ShardDescriptor shard = map.shards().get(shardId);
    if (shard == null) {
      throw new ShardUnavailableException("Shard '" + shardId + "' is not in shard map version " + map.version()
          + " (shards: " + map.shards().keySet() + "). Route sessions by key, or name one of those shards.");
    }
    if (shard.state() == ShardState.OFFLINE) {
      throw new ShardUnavailableException("Shard '" + shardId + "' (" + JdbcUrls.redact(shard.primaryUrl())
          + ") is OFFLINE in shard map version " + map.version() + "; bring it back ACTIVE before routing to it.");
    }
    if (pool == null || !pool.url().equals(shard.primaryUrl())) {
      pool = replace(shardId, shard.primaryUrl());
    }
    pool.checkedAgainst(map);
    return pool;
  }

  /**
   * A connection from {@code pool} past its breaker, or null when the pool was retired before the
   * borrow began; {@code counted} when the caller's unit of work is counted in the pool's bulkhead.
   */
  private Connection lend(RetiringPool pool, String shardId, boolean counted) {
    NodeBreaker breaker = pool.breaker();
    int permit = breaker.permit();
    if (permit == NodeBreaker.REFUSED) {
      throw breaker.refusal();
    }
    if (permit == NodeBreaker.PROBE) {
      probe(config, shardId, pool.url(), breaker, false);
      permit = NodeBreaker.PASS;
    }
    long waitStarted = System.nanoTime();
    Connection c;
    breaker.checkoutStarted();
    try {
      c = counted ? pool.borrowCounted() : pool.borrow();
    } catch (SQLException e) {
      if (breaker.checkoutEnded()) {
        throw breaker.refusal(); // the server was found silent while this caller waited
      }
      long checkoutMs = config.timeouts(shardId, false).connectionTimeoutMs();
      if (breaker.answersSince(waitStarted, () -> serverProcessAnswers(pool.url(), checkoutMs))) {
        // the server answers (a unit of work on it ended while this one waited, or a round trip of
        // its own): a busy shard, not a dead one, however many connections its pool has open
        throw saturated(shardId, "no connection came back within "
            + config.timeouts(shardId, false).connectionTimeoutMs() + " ms", e);
      }
      ShardUnavailableException failure = unavailable(shardId, pool, e);
      breaker.failed(permit == NodeBreaker.PROBE, "no connection: timed out after "
          + config.timeouts(shardId, false).connectionTimeoutMs() + " ms (" + rootMessage(e) + ")");
      throw failure;
    }
    if (breaker.checkoutEnded()) {
      closeQuietly(c); // the server was found silent just as the connection came
      throw breaker.refusal();
    }
    return c;
  }

  private static void closeQuietly(Connection c) {
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // back to its pool, which validates it before lending it again
      }
    }
  }

  /**
   * Before a move's write switch: opens connections on the primary of every shard that {@code next}
   * gives buckets it does not own in {@code now}, as many as the pools of the shards giving them up
   * hold (their writers are the ones that will come over at the flip, all at once), at least one,
   * and leaving one of the pool's connections to the shard's own work. Each is borrowed (so it is
   * opened, or validated if idle) and all are held until the last came, then returned to the pool idle. Runs on a daemon thread of its own and
   * returns at once; a failure is logged and only means the first writes open their own connections.
   * Each new connection plans the statements of {@code keyedTables} ({table, key column}) first (see
   * {@code warmed}); {@code afterwards} is then called on that thread with the shard's id.
   */
  public void warmFor(ShardMap now, ShardMap next, List<String[]> keyedTables,
      java.util.function.Consumer<String> afterwards) {
    if (now.bucketCount() != next.bucketCount()) {
      return;
    }
    Map<String, java.util.Set<String>> donorsOf = new java.util.TreeMap<>();
    for (int b = 0; b < next.bucketCount(); b++) {
      String owner = next.ownerOf(b);
      if (!owner.equals(now.ownerOf(b))) {
        donorsOf.computeIfAbsent(owner, k -> new java.util.TreeSet<>()).add(now.ownerOf(b));
      }
    }
    donorsOf.forEach((shardId, donors) -> {
      int wanted = Math.max(1, Math.min(config.poolSize(), donors.stream().mapToInt(this::openConnections).sum()));
      Thread warm = new Thread(() -> {
        fill(next, shardId, wanted, keyedTables);
        afterwards.accept(shardId);
      }, "shardwise-warm-" + config.unitName() + "-" + shardId);
      warm.setDaemon(true);
      warm.start();
    });
  }

  /** Connections the pool of {@code shardId}'s primary holds open (lent or idle); 0 before its first use. */
  private int openConnections(String shardId) {
    RetiringPool pool = pools.get(shardId);
    HikariPoolMXBean stats = pool == null ? null : pool.dataSource().getHikariPoolMXBean();
    return stats == null ? 0 : stats.getTotalConnections();
  }

  private void fill(ShardMap map, String shardId, int wanted, List<String[]> keyedTables) {
    List<Connection> held = new java.util.ArrayList<>(wanted);
    try {
      held.add(warmed(checkout(map, shardId), keyedTables));   // creates the pool of a shard not used yet
      HikariPoolMXBean stats = pools.get(shardId).dataSource().getHikariPoolMXBean();
      int busy = stats == null ? 0 : stats.getActiveConnections() - held.size();
      int borrow = Math.max(1, Math.min(wanted, config.poolSize() - busy - 1));
      while (held.size() < borrow) {
        held.add(warmed(checkout(map, shardId), keyedTables));
      }
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.INFO, "Persistence unit ''{0}'': opened {1} of {2} connections to shard {3} before"
          + " a move''s write switch ({4}); the first writes after it open the others", config.unitName(), held.size(),
          wanted, shardId, e.getMessage());
    } finally {
      held.forEach(ShardPools::closeQuietly);
    }
  }

  /**
   * Plans, on a new backend of a move's target, the application's kind of statement on each sharded
   * table (a read by key and an update by key, planned only: {@code EXPLAIN} without {@code ANALYZE}
   * runs nothing, fires no trigger and takes no row lock), so that the server has loaded the tables',
   * their indexes' and their triggers' catalog entries before the first write after the switch needs
   * them. A failure only costs the warm-up.
   */
  private Connection warmed(Connection c, List<String[]> keyedTables) {
    try (java.sql.Statement s = c.createStatement()) {
      for (String[] table : keyedTables) {
        s.execute("EXPLAIN SELECT * FROM " + table[0] + " WHERE " + table[1] + " IS NULL");
        s.execute("EXPLAIN UPDATE " + table[0] + " SET " + table[1] + " = " + table[1] + " WHERE " + table[1]
            + " IS NULL");
      }
      if (!c.getAutoCommit()) {
        c.rollback();
      }
    } catch (SQLException e) {
      LOG.log(System.Logger.Level.DEBUG, "Persistence unit ''{0}'': planning the tables on a warmed connection failed"
          + " ({1}); the first writes after the switch load them", config.unitName(), e.getMessage());
    }
    return c;
  }

  /** Drops the idle connections to the primary of {@code shardId} in the current shard map. */
  public void evictIdlePrimary(String shardId) {
    evictIdle(current(maps.get(), shardId));
  }

  /** Drops the idle connections of {@code pool}: the breaker's server was found silent. */
  public static void evictIdle(RetiringPool pool) {
    HikariPoolMXBean stats = pool.dataSource().getHikariPoolMXBean();
    if (stats != null) {
      stats.softEvictConnections();
    }
  }

  /**
   * The breaker's single probe: a connection of its own, straight from the driver (so that it asks
   * the server, not the pool's view of it, which after an outage lags behind the pool's reconnect
   * backoff), and one round trip on it, bounded by the role's connect timeout and
   * {@link #PROBE_TIMEOUT_SECONDS}. Success closes the breaker; failure opens it again and throws
   * its refusal.
   */
  public static void probe(ShardwiseConfig config, String shardId, String url, NodeBreaker breaker, boolean replica) {
    String failure;
    try (Connection c = io.shardwise.hibernate.internal.jdbc.DriverConnections.open(url, config.user(),
        config.password(), "shardwise-breaker-probe", io.shardwise.hibernate.internal.jdbc.DriverConnections.timeouts(
            ShardwiseConfig.NodeTimeouts.driverSeconds(config.timeouts(shardId, replica).connectTimeoutMs()),
            PROBE_TIMEOUT_SECONDS))) {
      if (c.isValid(PROBE_TIMEOUT_SECONDS)) {
        breaker.probeSucceeded();
        return;
      }
      failure = "the probe got no answer within " + PROBE_TIMEOUT_SECONDS + " s";
    } catch (SQLException e) {
      failure = "the probe could not connect: " + rootMessage(e);
    }
    breaker.failed(true, failure);
    throw breaker.refusal();
  }

  /**
   * Whether the server process at {@code url} answers at all: a TCP connection and PostgreSQL's
   * SSL request (8 bytes; a live server answers one byte, 'S' or 'N', before any authentication,
   * whatever its connection limits), within half the checkout timeout (at least 100 ms, at most
   * 1 s), measured in milliseconds where the driver's own timeouts count whole seconds. A frozen
   * or dead server does not answer; a busy one does at once.
   */
  static boolean serverProcessAnswers(String url, long checkoutMs) {
    int timeoutMs = (int) Math.max(100, Math.min(1000, checkoutMs / 2));
    String hostPort = JdbcUrls.hostPort(url).split(",")[0];
    int colon = hostPort.lastIndexOf(':');
    boolean hasPort = colon > hostPort.lastIndexOf(']');
    String host = (hasPort ? hostPort.substring(0, colon) : hostPort).replace("[", "").replace("]", "");
    try (java.net.Socket socket = new java.net.Socket()) {
      int port = hasPort ? Integer.parseInt(hostPort.substring(colon + 1)) : 5432;
      socket.connect(new java.net.InetSocketAddress(host.isEmpty() ? "localhost" : host, port), timeoutMs);
      socket.setSoTimeout(timeoutMs);
      java.io.DataOutputStream out = new java.io.DataOutputStream(socket.getOutputStream());
      out.writeInt(8);
      out.writeInt(80877103); // SSLRequest
      out.flush();
      int answer = socket.getInputStream().read();
      return answer == 'S' || answer == 'N';
    } catch (java.io.IOException | NumberFormatException e) {
      return false;
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage();
  }

  /** A new breaker for a server of {@code shardId}, its probe's lease covering a checkout and a probe round trip. */
  public static NodeBreaker newBreaker(ShardwiseConfig config, String shardId, String node, long checkoutMs) {
    return new NodeBreaker(shardId, node, config.breakerFailureThreshold(), config.breakerOpenMs(),
        checkoutMs + 2 * PROBE_TIMEOUT_SECONDS * 1000L + 1000);
  }

  // ---------------------------------------------------------------------------------------------
  // The bulkhead: units of work holding or waiting for a primary connection, per shard
  // ---------------------------------------------------------------------------------------------
  //
  // Counted by the pool that serves the shard now (RetiringPool.enterSession): the same count
  // tells a replaced pool when its last session is gone. While a changed primary URL replaces
  // the pool, units still on the old pool are not counted against the new one: for that moment
  // the shard may hold up to twice the limit, each pool at most the limit.

  private ShardSaturatedException saturated(String shardId, String why, Throwable cause) {
    RetiringPool pool = pools.get(shardId);
    HikariPoolMXBean stats = pool == null ? null : pool.dataSource().getHikariPoolMXBean();
    int busy = stats == null ? 0 : stats.getActiveConnections();
    int waiting = stats == null ? 0 : stats.getThreadsAwaitingConnection();
    return new ShardSaturatedException("pool for " + shardId + " exhausted: " + busy + " of " + config.poolSize()
        + " busy, " + waiting + " waiting; " + why + " — raise " + ShardwiseSettings.POOL_SIZE
        + " or lower the concurrency aimed at " + shardId + ". The shard is up; nothing was sent to it.", shardId, busy,
        config.poolSize(), waiting, cause);
  }

  private synchronized RetiringPool replace(String shardId, String url) {
    RetiringPool current = pools.get(shardId);
    if (current != null && current.url().equals(url)) {
      return current;
    }
    RetiringPool fresh = new RetiringPool(url, newPool(shardId, url), newBreaker(config, shardId,
        "primary " + JdbcUrls.hostPort(url), config.timeouts(shardId, false).connectionTimeoutMs()),
        io.shardwise.hibernate.metrics.internal.StatementTimers.of(metrics, shardId, "primary",
            JdbcUrls.hostPort(url)), config.timeouts(shardId, false).socketTimeoutMs());
    fresh.breaker().whenSilent(() -> evictIdle(fresh));
    pools.put(shardId, fresh);
    if (current != null) {
      retire(current);
    }
    return fresh;
  }

  /** Takes a pool out of use; it is closed once the connections it lent have come back. */
  public synchronized void retire(RetiringPool pool) {
    pool.retire();
    retired.add(pool);
    if (drainer == null) {
      drainer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "shardwise-pool-drainer-" + config.unitName());
        t.setDaemon(true);
        return t;
      });
      drainer.scheduleWithFixedDelay(this::closeDrained, DRAIN_CHECK_MS, DRAIN_CHECK_MS, TimeUnit.MILLISECONDS);
    }
  }

  private void closeDrained() {
    for (RetiringPool pool : retired) {
      if (pool.drained()) {
        retired.remove(pool);
        pool.dataSource().close();
      }
    }
    synchronized (this) {
      if (retired.isEmpty() && drainer != null) {
        drainer.shutdown();
        drainer = null;
      }
    }
  }

  private HikariDataSource newPool(String shardId, String url) {
    return newPool(config, "shardwise-" + shardId + "-primary", url, config.timeouts(shardId, false), false,
        metrics.poolTracker(shardId, "primary", JdbcUrls.hostPort(url)), housekeeper());
  }

  /**
   * A pool for one shard server: created lazily by callers and allowed to start while the server is
   * down ({@code initializationFailTimeout = -1}), so that one dead server never stops the others.
   * Sized by {@code shardwise.pool.size} and {@code shardwise.pool.min_idle}; every connection carries
   * the role's deadlines: the driver's connect and socket timeouts, and the server-side statement,
   * lock and idle-in-transaction timeouts (pgjdbc {@code options}, sent with the startup packet). A
   * value given in the URL itself wins over these. Its housekeeping runs on {@code housekeeper}
   * ({@link #housekeeper()}), not on a thread of its own.
   */
  public static HikariDataSource newPool(ShardwiseConfig config, String name, String url,
      ShardwiseConfig.NodeTimeouts timeouts, boolean readOnly, MetricsTrackerFactory metrics,
      ScheduledExecutorService housekeeper) {
    HikariConfig hc = baseConfig(config, name, url, config.poolSize(), config.poolMinIdle(),
        timeouts.connectionTimeoutMs(), readOnly, housekeeper);
    if (metrics != null) {
      hc.setMetricsTrackerFactory(metrics);
    }
    applyDeadlines(hc, timeouts);
    return new HikariDataSource(hc);
  }

  /**
   * A pool for a database that holds Shardwise's own state (the control database's transaction
   * log), with the given size and the deadlines of {@code timeouts}, running {@code connectionInitSql}
   * on every new connection: a silent server fails its statements after the socket timeout instead
   * of holding the caller (closing a session factory included) for ever.
   */
  public static HikariDataSource newPool(ShardwiseConfig config, String name, String url, int maximumSize,
      int minimumIdle, ShardwiseConfig.NodeTimeouts timeouts, String connectionInitSql,
      ScheduledExecutorService housekeeper) {
    HikariConfig hc = baseConfig(config, name, url, maximumSize, minimumIdle, timeouts.connectionTimeoutMs(), false,
        housekeeper);
    hc.setConnectionInitSql(connectionInitSql);
    applyDeadlines(hc, timeouts);
    return new HikariDataSource(hc);
  }

  private static void applyDeadlines(HikariConfig hc, ShardwiseConfig.NodeTimeouts timeouts) {
    hc.addDataSourceProperty("connectTimeout", Long.toString(ShardwiseConfig.NodeTimeouts.driverSeconds(
        timeouts.connectTimeoutMs())));
    hc.addDataSourceProperty("socketTimeout", Long.toString(ShardwiseConfig.NodeTimeouts.driverSeconds(
        timeouts.socketTimeoutMs())));
    hc.addDataSourceProperty("options", timeouts.serverOptions());
    // HikariCP's aliveness check of an idle connection must not outlast the checkout it serves, nor
    // hold a caller long on a server that went silent (it is not interruptible): a live server
    // answers its empty query in a millisecond
    hc.setValidationTimeout(Math.max(250, Math.min(1000, timeouts.connectionTimeoutMs() / 2)));
  }

  private static HikariConfig baseConfig(ShardwiseConfig config, String name, String url, int maximumSize,
      int minimumIdle, long timeoutMs, boolean readOnly, ScheduledExecutorService housekeeper) {
    HikariConfig hc = new HikariConfig();
    hc.setPoolName(name);
    hc.setScheduledExecutor(housekeeper);
    hc.setJdbcUrl(url);
    if (config.user() != null) {
      hc.setUsername(config.user());
    }
    if (config.password() != null) {
      hc.setPassword(config.password());
    }
    hc.setMaximumPoolSize(maximumSize);
    hc.setMinimumIdle(Math.min(minimumIdle, maximumSize));
    hc.setConnectionTimeout(timeoutMs);
    hc.setInitializationFailTimeout(-1);
    hc.setReadOnly(readOnly);
    return hc;
  }

  private ShardUnavailableException unavailable(String shardId, RetiringPool pool, SQLException e) {
    HikariPoolMXBean stats = pool.dataSource().getHikariPoolMXBean();
    String state = stats == null ? "pool not started"
        : "pool total=" + stats.getTotalConnections() + ", active=" + stats.getActiveConnections() + ", idle="
            + stats.getIdleConnections() + ", waiting=" + stats.getThreadsAwaitingConnection();
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return new ShardUnavailableException("Shard '" + shardId + "' is unavailable: no connection to its primary "
        + JdbcUrls.redact(pool.url()) + " (primary " + JdbcUrls.hostPort(pool.url()) + "): timed out after "
        + config.timeouts(shardId, false).connectionTimeoutMs() + " ms (" + state + "; last driver error: "
        + root.getMessage() + "). Sessions on other shards are unaffected; retry when the primary is back.",
        shardId, "primary " + JdbcUrls.hostPort(pool.url()), e);
  }

  /** The primary of a shard as failure messages name it: {@code primary host:port}. */
  public String primaryNode(String shardId) {
    RetiringPool pool = pools.get(shardId);
    ShardDescriptor shard = maps.get().shards().get(shardId);
    String url = pool != null ? pool.url() : shard != null ? shard.primaryUrl() : null;
    return url == null ? "primary (not in the shard map)" : "primary " + JdbcUrls.hostPort(url);
  }

  /** The circuit breaker of the primary of {@code shardId} (null before its first use). */
  public NodeBreaker breakerOf(String shardId) {
    RetiringPool pool = pools.get(shardId);
    return pool == null ? null : pool.breaker();
  }

  /** The statement timer of the primary of {@code shardId}'s pool (null before its first use, or without metrics). */
  public io.shardwise.hibernate.internal.jdbc.StatementTimer statementsOf(String shardId) {
    RetiringPool pool = pools.get(shardId);
    return pool == null ? null : pool.statements();
  }

  /** What the breaker of every primary in use has seen. */
  public List<io.shardwise.hibernate.NodeStatus> nodeStatus() {
    return pools.values().stream().map(p -> p.breaker().status())
        .sorted(java.util.Comparator.comparing(io.shardwise.hibernate.NodeStatus::shardId)).toList();
  }

  /** The socket timeout of connections to the primary of {@code shardId}, for failure messages. */
  public long socketTimeoutMs(String shardId) {
    return config.timeouts(shardId, false).socketTimeoutMs();
  }

  /** For diagnostics and tests: the shards whose pool was created. */
  public java.util.Set<String> shardIds() {
    return java.util.Set.copyOf(pools.keySet());
  }

  /** For diagnostics and tests: the pool behind a shard, or null before its first use. */
  public HikariDataSource poolOf(String shardId) {
    RetiringPool pool = pools.get(shardId);
    return pool == null ? null : pool.dataSource();
  }

  /** For tests: the retiring pool behind a shard, or null before its first use. */
  RetiringPool retiringPoolOf(String shardId) {
    return pools.get(shardId);
  }

  @Override
  public synchronized void close() {
    if (drainer != null) {
      drainer.shutdownNow();
      drainer = null;
    }
    retired.forEach(p -> p.dataSource().close());
    retired.clear();
    pools.values().forEach(p -> p.dataSource().close());
    pools.clear();
    housekeeping.close();
  }
}
