package io.shardwise.hibernate.readwrite.internal;

import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The replicas of every shard, as the shard map lists them. A node (and its pool, created on first
 * use) survives map changes that keep its URL; a node the map drops is closed.
 */
final class ReplicaPools implements AutoCloseable {
  private final ShardwiseConfig config;
  private final Map<String, List<ReplicaNode>> replicas = new ConcurrentHashMap<>();

  ReplicaPools(ShardwiseConfig config) {
    this.config = config;
  }

  /** The replicas of a shard as {@code map} lists them. */
  List<ReplicaNode> of(ShardMap map, String shardId) {
    ShardDescriptor shard = map.shards().get(shardId);
    if (shard == null || shard.replicaUrls().isEmpty()) {
      return List.of();
    }
    List<ReplicaNode> nodes = replicas.get(shardId);
    if (nodes != null && sameUrls(nodes, shard.replicaUrls())) {
      return nodes;
    }
    return rebuild(shard);
  }

  private synchronized List<ReplicaNode> rebuild(ShardDescriptor shard) {
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

  @Override
  public synchronized void close() {
    replicas.values().forEach(nodes -> nodes.forEach(ReplicaNode::close));
    replicas.clear();
  }
}
