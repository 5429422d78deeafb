package io.shardwise.hibernate.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.shardwise.hibernate.ShardUnavailableException;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardState;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One HikariCP pool per shard primary, created on first use so that a shard that is down when the
 * application starts does not stop the others from serving. A pool is replaced when the shard map
 * gives its shard a new primary URL.
 */
public final class ShardPools implements AutoCloseable {
  private final ShardwiseConfig config;
  private final Map<String, Pool> pools = new ConcurrentHashMap<>();
  private final Map<String, List<ReplicaNode>> replicas = new ConcurrentHashMap<>();

  private record Pool(String url, HikariDataSource dataSource) {}

  public ShardPools(ShardwiseConfig config) {
    this.config = config;
  }

  /** A connection to the primary of {@code shardId} as the current map describes it. */
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
    Pool pool = pools.get(shardId);
    if (pool == null || !pool.url().equals(shard.primaryUrl())) {
      pool = replace(shardId, shard.primaryUrl(), pool);
    }
    try {
      return pool.dataSource().getConnection();
    } catch (SQLException e) {
      throw unavailable(shardId, pool, e);
    }
  }

  private synchronized Pool replace(String shardId, String url, Pool stale) {
    Pool current = pools.get(shardId);
    if (current != null && current.url().equals(url)) {
      return current;
    }
    Pool fresh = new Pool(url, newPool(shardId, url));
    pools.put(shardId, fresh);
    if (stale != null) {
      stale.dataSource().close();
    }
    return fresh;
  }

  private HikariDataSource newPool(String shardId, String url) {
    return newPool(config, "shardwise-" + shardId + "-primary", url, config.connectionTimeoutMs(), false);
  }

  /**
   * A pool for one server: created lazily by callers and allowed to start while the server is down
   * ({@code initializationFailTimeout = -1}), so that one dead server never stops the others. Sized
   * by {@code shardwise.pool.size} and {@code shardwise.pool.min_idle}.
   */
  static HikariDataSource newPool(ShardwiseConfig config, String name, String url, long timeoutMs, boolean readOnly) {
    return newPool(config, name, url, config.poolSize(), config.poolMinIdle(), timeoutMs, readOnly);
  }

  /** A pool for one server with the configured credentials and the given size, idle floor and checkout timeout. */
  public static HikariDataSource newPool(ShardwiseConfig config, String name, String url, int maximumSize,
      int minimumIdle, long timeoutMs, boolean readOnly) {
    HikariConfig hc = new HikariConfig();
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
    return new HikariDataSource(hc);
  }

  private ShardUnavailableException unavailable(String shardId, Pool pool, SQLException e) {
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

  /** The replicas of a shard as the current map lists them; nodes (and their pools) survive map changes. */
  public List<ReplicaNode> replicas(ShardMap map, String shardId) {
    ShardDescriptor shard = map.shards().get(shardId);
    if (shard == null || shard.replicaUrls().isEmpty()) {
      return List.of();
    }
    List<ReplicaNode> nodes = replicas.get(shardId);
    if (nodes != null && sameUrls(nodes, shard.replicaUrls())) {
      return nodes;
    }
    return rebuildReplicas(shard);
  }

  private synchronized List<ReplicaNode> rebuildReplicas(ShardDescriptor shard) {
    List<ReplicaNode> old = replicas.getOrDefault(shard.id(), List.of());
    if (sameUrls(old, shard.replicaUrls())) {
      return old;
    }
    List<ReplicaNode> fresh = new ArrayList<>();
    for (String url : shard.replicaUrls()) {
      fresh.add(old.stream().filter(n -> n.url.equals(url)).findFirst()
          .orElseGet(() -> new ReplicaNode(shard.id(), url, config)));
    }
    replicas.put(shard.id(), List.copyOf(fresh));
    old.stream().filter(n -> !fresh.contains(n)).forEach(ReplicaNode::close);
    return replicas.get(shard.id());
  }

  private static boolean sameUrls(List<ReplicaNode> nodes, List<String> urls) {
    if (nodes.size() != urls.size()) {
      return false;
    }
    for (int i = 0; i < urls.size(); i++) {
      if (!nodes.get(i).url.equals(urls.get(i))) {
        return false;
      }
    }
    return true;
  }

  /** For diagnostics and tests: the pool behind a shard, or null before its first use. */
  public HikariDataSource poolOf(String shardId) {
    Pool pool = pools.get(shardId);
    return pool == null ? null : pool.dataSource();
  }

  @Override
  public synchronized void close() {
    pools.values().forEach(p -> p.dataSource().close());
    pools.clear();
    replicas.values().forEach(nodes -> nodes.forEach(ReplicaNode::close));
    replicas.clear();
  }
}
