package io.shardwise.hibernate.routing;

import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import java.util.List;

/**
 * One physical shard: its id (the Hibernate tenant identifier), the JDBC URL of its primary, the
 * URLs of its streaming replicas, a weight for strategies that balance by capacity, and a state.
 */
public record ShardDescriptor(String id, String primaryUrl, List<String> replicaUrls, int weight, ShardState state) {

  public ShardDescriptor {
    if (id == null || !id.matches("[A-Za-z0-9_][A-Za-z0-9_.-]{0,62}")) {
      throw new IllegalArgumentException("A shard id is 1-63 letters, digits, '_', '-' or '.', was '" + id + "'");
    }
    if (primaryUrl == null) {
      throw new NullPointerException("shard " + id + " needs a primary JDBC URL");
    }
    replicaUrls = List.copyOf(replicaUrls == null ? List.of() : replicaUrls);
    if (weight < 1) {
      throw new IllegalArgumentException("shard " + id + ": weight must be at least 1, was " + weight);
    }
    state = state == null ? ShardState.ACTIVE : state;
    id = id.intern();
  }

  /** The URLs with their credentials masked: a descriptor may end up in a message or a log line. */
  @Override
  public String toString() {
    return "ShardDescriptor[id=" + id + ", primaryUrl=" + JdbcUrls.redact(primaryUrl) + ", replicaUrls="
        + replicaUrls.stream().map(JdbcUrls::redact).toList() + ", weight=" + weight + ", state=" + state + "]";
  }

  public static ShardDescriptor of(String id, String primaryUrl, String... replicaUrls) {
    return new ShardDescriptor(id, primaryUrl, List.of(replicaUrls), 1, ShardState.ACTIVE);
  }
}
