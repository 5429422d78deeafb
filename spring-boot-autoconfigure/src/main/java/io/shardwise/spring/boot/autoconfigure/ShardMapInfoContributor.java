package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.actuate.info.Info;
import org.springframework.boot.actuate.info.InfoContributor;

/**
 * The shard map under {@code shardwise} in the actuator's info endpoint: its version, bucket
 * count, strategy, and per shard its primary (without credentials or URL parameters), replica
 * count, weight, state and the number of buckets it owns.
 */
final class ShardMapInfoContributor implements InfoContributor {
  private final ShardedSessions shards;
  private final String strategy;

  ShardMapInfoContributor(ShardedSessions shards, String strategy) {
    this.shards = shards;
    this.strategy = strategy;
  }

  @Override
  public void contribute(Info.Builder builder) {
    ShardMap map = shards.shardMap();
    Map<String, Integer> owned = new LinkedHashMap<>();
    for (int bucket = 0; bucket < map.bucketCount(); bucket++) {
      owned.merge(map.ownerOf(bucket), 1, Integer::sum);
    }
    Map<String, Object> perShard = new LinkedHashMap<>();
    for (ShardDescriptor shard : map.shards().values()) {
      Map<String, Object> detail = new LinkedHashMap<>();
      detail.put("primary", withoutSecrets(shard.primaryUrl()));
      detail.put("replicas", shard.replicaUrls().size());
      detail.put("weight", shard.weight());
      detail.put("state", shard.state().name().toLowerCase(java.util.Locale.ROOT));
      detail.put("buckets", owned.getOrDefault(shard.id(), 0));
      perShard.put(shard.id(), detail);
    }
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("mapVersion", map.version());
    summary.put("buckets", map.bucketCount());
    summary.put("strategy", strategy);
    summary.put("shards", perShard);
    builder.withDetail("shardwise", summary);
  }

  /** jdbc:postgresql://user:secret@host:5432/db?password=x becomes jdbc:postgresql://host:5432/db. */
  static String withoutSecrets(String jdbcUrl) {
    String url = jdbcUrl;
    int query = url.indexOf('?');
    if (query >= 0) {
      url = url.substring(0, query);
    }
    int scheme = url.indexOf("//");
    int at = url.indexOf('@', scheme + 2);
    int path = url.indexOf('/', scheme + 2);
    if (scheme >= 0 && at > 0 && (path < 0 || at < path)) {
      url = url.substring(0, scheme + 2) + url.substring(at + 1);
    }
    return url;
  }
}
