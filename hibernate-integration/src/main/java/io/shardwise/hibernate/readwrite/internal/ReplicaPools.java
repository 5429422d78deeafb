package io.shardwise.hibernate.readwrite.internal;

import io.shardwise.hibernate.internal.RetiringPool;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;

/**
 * The replicas of every shard, as the shard map lists them. A node (and its pool, created on first
 * use) survives map changes that keep its URL. A node the map drops (its shard's last replica
 * included) lends nothing more, and its pool is retired: closed once the connections it lent have
 * come back, not under their users.
 */
final class ReplicaPools implements AutoCloseable {
  private final ShardwiseConfig config;
  private final Consumer<RetiringPool> retire;
  private final ShardwiseMetrics metrics;
  private final ScheduledExecutorService housekeeper;
  private final Map<String, List<ReplicaNode>> replicas = new ConcurrentHashMap<>();

  /** @param retire takes a dropped replica's pool out of use and closes it once drained */
  /** @param housekeeper runs the replica pools' HikariCP housekeeping ({@code ShardPools.housekeeper()}) */
  ReplicaPools(ShardwiseConfig config, Consumer<RetiringPool> retire, ScheduledExecutorService housekeeper,
      ShardwiseMetrics metrics) {
    this.housekeeper = housekeeper;
    this.metrics = metrics;
    this.config = config;
    this.retire = retire;
  }

  /** The replicas of a shard as {@code map} lists them. */
  List<ReplicaNode> of(ShardMap map, String shardId) {
    ShardDescriptor shard = map.shards().get(shardId);
    List<String> urls = shard == null ? List.of() : shard.replicaUrls();
    List<ReplicaNode> nodes = replicas.get(shardId);
    if (nodes == null && urls.isEmpty()) {
      return List.of();
    }
    if (nodes != null && sameUrls(nodes, urls)) {
      return nodes;
    }
    return rebuild(shardId, urls);
  }

  private synchronized List<ReplicaNode> rebuild(String shardId, List<String> urls) {
    List<ReplicaNode> old = replicas.getOrDefault(shardId, List.of());
    if (sameUrls(old, urls)) {
      return old;
    }
    List<ReplicaNode> fresh = new ArrayList<>();
    for (String url : urls) {
      fresh.add(old.stream().filter(n -> n.url.equals(url)).findFirst()
          .orElseGet(() -> new ReplicaNode(shardId, url, config, housekeeper, metrics)));
    }
    replicas.put(shardId, List.copyOf(fresh));
    for (ReplicaNode gone : old) {
      if (!fresh.contains(gone)) {
        RetiringPool pool = gone.leaveMap();
        if (pool != null) {
          retire.accept(pool);
        }
      }
    }
    return replicas.get(shardId);
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

  @Override
  public synchronized void close() {
    replicas.values().forEach(nodes -> nodes.forEach(ReplicaNode::close));
    replicas.clear();
  }
}
