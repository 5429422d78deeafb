package io.shardwise.hibernate.readwrite.internal;

import io.shardwise.hibernate.BreakerState;
import io.shardwise.hibernate.internal.jdbc.DriverConnections;
import io.shardwise.hibernate.internal.jdbc.NodeBreaker;
import io.shardwise.hibernate.internal.jdbc.ShardConnection;
import io.shardwise.hibernate.internal.ShardPools;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import io.shardwise.hibernate.routing.ShardMap;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Checks every replica on a fixed interval, on one daemon thread, over its own connection (not
 * the pool's, which may be exhausted): received and replayed positions, replay paused or not, and
 * the commit time of the last replayed transaction. A second daemon thread asks the primaries, so
 * that a frozen primary holds only that thread, never the replicas' checks. A replica
 * that does not answer, has replay paused, or lags past the configured bytes or time leaves the
 * rotation; it comes back at the first check that finds it healthy.
 *
 * <h2>Lag when the primary cannot be asked</h2>
 *
 * Lag is judged from the replica's own state first: what it received and has not replayed yet
 * ({@code pg_last_wal_receive_lsn()} against {@code pg_last_wal_replay_lsn()}). The primary's
 * position adds what the replica has not even received, and is used only while a reading of it is
 * recent ({@link #primaryFreshMillis}). A primary that is frozen, dead or unreachable gives no
 * reading; its replicas are then judged by their own positions alone and stay in rotation as long
 * as they have replayed what they received: a primary that cannot be reached commits nothing new
 * through anyone, so they are as current as any reader can be. Read-your-writes pins still apply
 * (a pin past a replica's position sends the read to the primary, and fails there), and so does
 * the idle-primary rule below.
 *
 * <h2>A silent server releases its callers</h2>
 *
 * Each check waits for the server's answer at most {@code shardwise.replica.connection_timeout_ms}
 * (default 1 s). A check that got no answer in that time is made once more at once on a new
 * connection; two without an answer (a frozen server, a black hole — not a refused connection,
 * which callers see at once themselves) find the server silent: its breaker
 * opens and every connection it has lent to a session is aborted ({@link NodeBreaker#unreachable}),
 * so the callers inside a statement on it fail at once instead of waiting for the socket timeout,
 * and a read-only unit of work on a replica runs once more elsewhere. A statement that is merely
 * long runs on: its server answers the check. A check that succeeds closes the server's breaker.
 *
 * <h2>Which primaries are asked</h2>
 *
 * A primary with replicas is asked its WAL position at every interval, for their lag. A primary
 * without replicas is asked only for an answer ({@code SELECT 1}, no WAL position: nobody would
 * use it), and only while a check could matter: a session holds one of its connections or waits
 * in its pool's checkout ({@link NodeBreaker#hasCallers()}), or its breaker is not closed. An idle
 * primary without replicas costs nothing per interval, so the monitor's work follows the shards in
 * use, not the shard count; a frozen one is found silent once a caller comes to it, within the
 * same two checks. Its connection stays open between checks (no login per caller).
 *
 * <p>A replay position lower than the last one is believed, not ignored: the server behind the
 * URL was rebuilt or restored from an older backup, and what the old one had replayed says nothing
 * about it. The monitor's connection to a replica that left the shard map is closed.
 */
final class ReplicaMonitor implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("io.shardwise");

  private final ShardwiseConfig config;
  private final ShardPools pools;
  private final ReplicaPools replicas;
  private final Supplier<ShardMap> maps;
  private final ScheduledExecutorService scheduler;
  private final ScheduledExecutorService primaryScheduler;
  /** The latest reading of each shard's primary WAL position, by shard (written by whoever reads it). */
  private final Map<String, PrimaryReading> primaryReadings = new ConcurrentHashMap<>();
  private final Map<ReplicaNode, Connection> connections = new HashMap<>();
  /** The monitor's own connection to each primary, by URL (under the lock of this map). */
  private final Map<String, Connection> primaryConnections = new HashMap<>();
  private final ShardwiseMetrics metrics;
  /** Replicas whose gauges are published (monitor thread, under this monitor's lock). */
  private final Set<ReplicaNode> watched = new HashSet<>();

  ReplicaMonitor(ShardwiseConfig config, ShardPools pools, ReplicaPools replicas, Supplier<ShardMap> maps,
      ShardwiseMetrics metrics) {
    this.metrics = metrics;
    this.config = config;
    this.pools = pools;
    this.replicas = replicas;
    this.maps = maps;
    this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "shardwise-replica-monitor-" + config.unitName());
      t.setDaemon(true);
      return t;
    });
    this.primaryScheduler = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "shardwise-primary-monitor-" + config.unitName());
      t.setDaemon(true);
      return t;
    });
  }

  /** A primary's WAL position and when it was read. */
  private record PrimaryReading(String url, long lsn, long atMillis) {}

  /** Checks once now (so replicas serve from the first read), then every interval. */
  void start() {
    checkAll();
    long interval = config.replicaMonitorIntervalMs();
    primaryScheduler.scheduleWithFixedDelay(this::readPrimaries, interval, interval, TimeUnit.MILLISECONDS);
    scheduler.scheduleWithFixedDelay(this::checkReplicas, interval, interval, TimeUnit.MILLISECONDS);
  }

  /** Reads the primaries' positions, then checks every replica against them, on the calling thread. */
  void checkAll() {
    readPrimaries();
    checkReplicas();
  }

  /** How old a primary's reading may be and still count: a few intervals, at least a second. */
  private long primaryFreshMillis() {
    return Math.max(1000, 3 * config.replicaMonitorIntervalMs());
  }

  private void readPrimaries() {
    synchronized (primaryConnections) {
      try {
        ShardMap map = maps.get();
        Set<String> primaryUrls = new HashSet<>();
        for (String shardId : map.shards().keySet()) {
          boolean judgesReplicas = !replicas.of(map, shardId).isEmpty();
          NodeBreaker breaker = pools.breakerOf(shardId);
          if (!judgesReplicas && breaker == null) {
            continue; // neither replicas to judge nor sessions to release
          }
          String url = map.shards().get(shardId).primaryUrl();
          primaryUrls.add(url);
          if (judgesReplicas) {
            long lsn = askPrimary(shardId, url, true);
            if (lsn >= 0) {
              primaryReadings.put(shardId, new PrimaryReading(url, lsn, System.currentTimeMillis()));
            }
          } else if (breaker.hasCallers() || breaker.state() != BreakerState.CLOSED) {
            askPrimary(shardId, url, false);
          }
        }
        for (String url : List.copyOf(primaryConnections.keySet())) {
          if (!primaryUrls.contains(url)) {
            close(primaryConnections.remove(url));
          }
        }
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "Primary check failed: " + e);
      }
    }
  }

  /** The recent WAL position of the primary of {@code shardId} as the map names it, or -1. */
  private long recentPrimaryLsn(ShardMap map, String shardId) {
    PrimaryReading reading = primaryReadings.get(shardId);
    return reading != null && reading.url().equals(map.shards().get(shardId).primaryUrl())
        && System.currentTimeMillis() - reading.atMillis() <= primaryFreshMillis() ? reading.lsn() : -1;
  }

  private synchronized void checkReplicas() {
    try {
      ShardMap map = maps.get();
      Set<ReplicaNode> inMap = new HashSet<>();
      for (String shardId : map.shards().keySet()) {
        List<ReplicaNode> nodes = replicas.of(map, shardId);
        inMap.addAll(nodes);
        if (nodes.isEmpty()) {
          continue;
        }
        long primaryLsn = recentPrimaryLsn(map, shardId);
        for (ReplicaNode replica : nodes) {
          check(replica, primaryLsn);
          if (watched.add(replica)) {
            metrics.watchReplica(replica.shardId, JdbcUrls.hostPort(replica.url), replica::status);
          }
        }
      }
      for (ReplicaNode replica : List.copyOf(connections.keySet())) {
        if (!inMap.contains(replica)) {
          closeConnection(replica);
        }
      }
      for (ReplicaNode replica : List.copyOf(watched)) {
        if (!inMap.contains(replica)) {
          watched.remove(replica);
          metrics.forgetReplica(replica.shardId, JdbcUrls.hostPort(replica.url));
        }
      }
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "Replica check failed: " + e);
    }
  }

  /**
   * Asks the primary over the monitor's own connection, never the pool's: a failed check is no
   * application call and must not count against the primary's circuit breaker (after a restart it
   * would refuse the first writes), nor wait for a pooled connection. A successful one tells the
   * breaker the server answers again.
   *
   * @param readWal whether to read its WAL position, or only to get an answer
   * @return the WAL position (0 when not read), or -1 when the primary did not answer
   */
  private long askPrimary(String shardId, String url, boolean readWal) {
    try {
      Connection c = primaryConnections.get(url);
      if (c == null || c.isClosed()) {
        c = openMonitorConnection(url, "shardwise-primary-monitor");
        primaryConnections.put(url, c);
      }
      long lsn = 0;
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(readWal ? "SELECT pg_current_wal_lsn()::text" : "SELECT 1")) {
        rs.next();
        if (readWal) {
          lsn = LsnText.parse(rs.getString(1));
        }
      }
      NodeBreaker breaker = pools.breakerOf(shardId);
      if (breaker != null && breaker.state() != BreakerState.CLOSED) {
        breaker.probeSucceeded();
      }
      return lsn;
    } catch (SQLException | RuntimeException e) {
      close(primaryConnections.remove(url));
      NodeBreaker breaker = pools.breakerOf(shardId);
      if (breaker != null && ShardConnection.isTimeout(e) && silentAgain(url)) {
        breaker.unreachable(silence());
      }
      return -1;
    }
  }

  /** What two checks that timed out saw, as the callers' messages and the breaker's status say it. */
  private String silence() {
    return "two checks of the replica monitor got no answer within " + config.replicaConnectionTimeoutMs()
        + " ms each";
  }

  /**
   * A check that got no answer is made once more at once, on a new connection, before the server is
   * found silent: a live server that missed one answer (its backend or this thread held up by a
   * busy machine) rarely misses a second, and a frozen one cannot answer either.
   */
  private boolean silentAgain(String url) {
    long started = System.nanoTime();
    try (Connection c = openMonitorConnection(url, "shardwise-monitor-recheck"); Statement s = c.createStatement()) {
      s.execute("SELECT 1");
      return false;
    } catch (SQLException e) {
      // the driver's login timeout says "timed out" without a socket timeout beneath: go by the clock
      return ShardConnection.isTimeout(e)
          || System.nanoTime() - started >= TimeUnit.MILLISECONDS.toNanos(config.replicaConnectionTimeoutMs());
    }
  }

  private void check(ReplicaNode replica, long primaryLsn) {
    long now = System.currentTimeMillis();
    try {
      Connection c = connection(replica);
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
          "SELECT pg_last_wal_replay_lsn()::text, pg_is_wal_replay_paused(),"
              + " (extract(epoch from (clock_timestamp() - pg_last_xact_replay_timestamp())) * 1000)::bigint,"
              + " pg_last_wal_receive_lsn()::text")) {
        rs.next();
        String lsnText = rs.getString(1);
        boolean paused = rs.getBoolean(2);
        long sinceReplay = rs.getLong(3);
        boolean sinceKnown = !rs.wasNull();
        long replay = lsnText == null ? -1 : LsnText.parse(lsnText);
        String receivedText = rs.getString(4);
        long received = receivedText == null ? -1 : LsnText.parse(receivedText);
        long before = replica.monitorReplayLsn;
        if (replay >= 0 && before >= 0 && Long.compareUnsigned(replay, before) < 0) {
          LOG.log(System.Logger.Level.WARNING, "Replica {0} of shard {1} has replayed up to {2}, behind the {3} it"
              + " reported before: rebuilt or restored behind the same URL; its earlier progress no longer counts",
              JdbcUrls.redact(replica.url), replica.shardId, LsnText.format(replay), LsnText.format(before));
          replica.caughtUpAt = 0;
        }
        replica.monitorReplayLsn = replay;
        replica.replayedTo(replay);
        long notReplayed = received < 0 || replay < 0 ? 0 : Math.max(0, received - replay);
        long lagBytes = replay < 0 ? -1
            : primaryLsn < 0 ? notReplayed
            : Math.max(notReplayed, Math.max(0, primaryLsn - replay));
        // The age of the last replayed commit overstates lag after a quiet spell (nothing to replay
        // is not lag): once behind, the replica is at most as late as its last caught-up check.
        if (lagBytes == 0) {
          replica.caughtUpAt = now;
        }
        long lagMillis = lagBytes == 0 ? 0
            : !sinceKnown ? -1
            : replica.caughtUpAt > 0 ? Math.min(Math.max(0, sinceReplay), now - replica.caughtUpAt)
            : Math.max(0, sinceReplay);
        replica.lagBytes = lagBytes;
        replica.lagMillis = lagMillis;
        replica.checkedAt = now;
        String problem = paused ? "replay paused"
            : replay < 0 ? "not a streaming replica (no replay position)"
            : lagBytes > config.replicaMaxLagBytes() ? "lags " + lagBytes + " bytes (limit " + config.replicaMaxLagBytes() + ")"
            : lagMillis > config.replicaMaxLagMs() ? "lags " + lagMillis + " ms (limit " + config.replicaMaxLagMs() + ")"
            : null;
        if (replica.breaker.state() != BreakerState.CLOSED) {
          replica.breaker.probeSucceeded(); // it answers again
        }
        if (problem == null) {
          if (!replica.healthy) {
            LOG.log(System.Logger.Level.INFO, "Replica {0} of shard {1} is back in rotation", JdbcUrls.redact(replica.url),
                replica.shardId);
          }
          replica.reason = primaryLsn < 0 ? "ok (its primary gives no WAL position: judged by what it received and"
              + " replayed)" : "ok";
          replica.healthy = true;
        } else {
          takeOut(replica, problem);
        }
      }
    } catch (SQLException e) {
      closeConnection(replica);
      replica.checkedAt = now;
      takeOut(replica, "unreachable: " + e.getMessage());
      if (ShardConnection.isTimeout(e) && silentAgain(replica.url)) {
        replica.breaker.unreachable(silence());
      }
    }
  }

  private void takeOut(ReplicaNode replica, String why) {
    if (replica.healthy) {
      LOG.log(System.Logger.Level.WARNING, "Replica {0} of shard {1} leaves rotation: {2}", JdbcUrls.redact(replica.url),
          replica.shardId, why);
    }
    replica.markUnhealthy(why);
  }

  private Connection connection(ReplicaNode replica) throws SQLException {
    Connection c = connections.get(replica);
    if (c != null && !c.isClosed()) {
      return c;
    }
    c = openMonitorConnection(replica.url, "shardwise-replica-monitor");
    connections.put(replica, c);
    return c;
  }

  /**
   * A connection of the monitor's own, whose every read waits at most the answer deadline
   * ({@code shardwise.replica.connection_timeout_ms}; the driver's login in whole seconds, rounded up).
   */
  private Connection openMonitorConnection(String url, String applicationName) throws SQLException {
    long answerMs = config.replicaConnectionTimeoutMs();
    long seconds = ShardwiseConfig.NodeTimeouts.driverSeconds(answerMs);
    java.util.Properties options = DriverConnections.timeouts(seconds, seconds);
    // the whole login, not each read of it: with sslmode=prefer a silent server costs a socket
    // timeout for the SSL request and another for the plain retry
    options.setProperty("loginTimeout", Long.toString(seconds));
    Connection c = DriverConnections.open(url, config.user(), config.password(), applicationName, options);
    try {
      c.setNetworkTimeout(Runnable::run, (int) answerMs);
    } catch (SQLException e) {
      close(c);
      throw e;
    }
    return c;
  }

  private void closeConnection(ReplicaNode replica) {
    close(connections.remove(replica));
  }

  private static void close(Connection c) {
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // already broken
      }
    }
  }

  @Override
  public void close() {
    scheduler.shutdownNow();
    primaryScheduler.shutdownNow();
    try {
      scheduler.awaitTermination(5, TimeUnit.SECONDS);
      primaryScheduler.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      List.copyOf(connections.keySet()).forEach(this::closeConnection);
    }
    synchronized (primaryConnections) {
      primaryConnections.values().forEach(ReplicaMonitor::close);
      primaryConnections.clear();
    }
  }
}
