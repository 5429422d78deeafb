package io.shardwise.hibernate.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import com.zaxxer.hikari.metrics.MetricsTrackerFactory;
import io.shardwise.hibernate.ShardUnavailableException;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
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
  /** How often retired pools are checked for returned connections. */
  private static final long DRAIN_CHECK_MS = 50;

  private final ShardwiseConfig config;
  private final Supplier<ShardMap> maps;
  private final ShardwiseMetrics metrics;
  private final Map<String, RetiringPool> pools = new ConcurrentHashMap<>();
  private final List<RetiringPool> retired = new CopyOnWriteArrayList<>();
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
  }

  /** A connection to the primary of {@code shardId} as the current map describes it. */
  @Override
  public Connection primary(String shardId) {
    return primary(maps.get(), shardId);
  }

  /** A connection to the primary of {@code shardId} as {@code map} describes it. */
  public Connection primary(ShardMap map, String shardId) {
    ShardDescriptor shard = map.shards().get(shardId);
    if (shard == null) {
      throw new ShardUnavailableException("Shard '" + shardId + "' is not in shard map version " + map.version()
          + " (shards: " + map.shards().keySet() + "). Route sessions by key, or name one of those shards.");
    }
    if (shard.state() == ShardState.OFFLINE) {
      throw new ShardUnavailableException("Shard '" + shardId + "' (" + JdbcUrls.redact(shard.primaryUrl())
          + ") is OFFLINE in shard map version " + map.version() + "; bring it back ACTIVE before routing to it.");
    }
    while (true) {
      RetiringPool pool = pools.get(shardId);
      if (pool == null || !pool.url().equals(shard.primaryUrl())) {
        pool = replace(shardId, shard.primaryUrl());
      }
      try {
        Connection c = pool.borrow();
        if (c != null) {
          return c;
        }
        // retired between the lookup and the borrow: the map holds its successor now
      } catch (SQLException e) {
        throw unavailable(shardId, pool, e);
      }
    }
  }

  private synchronized RetiringPool replace(String shardId, String url) {
    RetiringPool current = pools.get(shardId);
    if (current != null && current.url().equals(url)) {
      return current;
    }
    RetiringPool fresh = new RetiringPool(url, newPool(shardId, url));
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
    return newPool(config, "shardwise-" + shardId + "-primary", url, config.poolSize(), config.poolMinIdle(),
        config.connectionTimeoutMs(), false, null, metrics.poolTracker(shardId, "primary", JdbcUrls.hostPort(url)));
  }

  /**
   * A pool for one server: created lazily by callers and allowed to start while the server is down
   * ({@code initializationFailTimeout = -1}), so that one dead server never stops the others. Sized
   * by {@code shardwise.pool.size} and {@code shardwise.pool.min_idle}.
   */
  public static HikariDataSource newPool(ShardwiseConfig config, String name, String url, long timeoutMs, boolean readOnly) {
    return newPool(config, name, url, config.poolSize(), config.poolMinIdle(), timeoutMs, readOnly);
  }

  /** A pool for one server with the configured credentials and the given size, idle floor and checkout timeout. */
  public static HikariDataSource newPool(ShardwiseConfig config, String name, String url, int maximumSize,
      int minimumIdle, long timeoutMs, boolean readOnly) {
    return newPool(config, name, url, maximumSize, minimumIdle, timeoutMs, readOnly, null);
  }

  /** The same, running {@code connectionInitSql} (when not null) on every new connection. */
  public static HikariDataSource newPool(ShardwiseConfig config, String name, String url, int maximumSize,
      int minimumIdle, long timeoutMs, boolean readOnly, String connectionInitSql) {
    return newPool(config, name, url, maximumSize, minimumIdle, timeoutMs, readOnly, connectionInitSql, null);
  }

  /** The same, reporting to HikariCP's metrics tracker {@code metrics} (when not null). */
  public static HikariDataSource newPool(ShardwiseConfig config, String name, String url, int maximumSize,
      int minimumIdle, long timeoutMs, boolean readOnly, String connectionInitSql, MetricsTrackerFactory metrics) {
    HikariConfig hc = new HikariConfig();
    if (metrics != null) {
      hc.setMetricsTrackerFactory(metrics);
    }
    hc.setPoolName(name);
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
    if (connectionInitSql != null) {
      hc.setConnectionInitSql(connectionInitSql);
    }
    return new HikariDataSource(hc);
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
        + JdbcUrls.redact(pool.url()) + " within " + config.connectionTimeoutMs() + " ms (" + state
        + "; last driver error: " + root.getMessage() + "). Sessions on other shards are unaffected; retry when the primary is back.", e);
  }

  /** The primary of a shard as failure messages name it: {@code primary host:port}. */
  public String primaryNode(String shardId) {
    RetiringPool pool = pools.get(shardId);
    ShardDescriptor shard = maps.get().shards().get(shardId);
    String url = pool != null ? pool.url() : shard != null ? shard.primaryUrl() : null;
    return url == null ? "primary (not in the shard map)" : "primary " + JdbcUrls.hostPort(url);
  }

  /** For diagnostics and tests: the pool behind a shard, or null before its first use. */
  public HikariDataSource poolOf(String shardId) {
    RetiringPool pool = pools.get(shardId);
    return pool == null ? null : pool.dataSource();
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
  }
}
