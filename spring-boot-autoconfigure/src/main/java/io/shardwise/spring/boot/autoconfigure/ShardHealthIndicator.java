package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.spi.ShardwiseConnectionProvider;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The health of one shard: DOWN when its primary cannot be reached (or answers as a standby),
 * UP otherwise, with what the replica monitor last saw of each replica (healthy, lag, reason) —
 * a lagging or unreachable replica takes it out of the read rotation, not the shard out of
 * service. The primary check borrows one pooled connection.
 */
final class ShardHealthIndicator extends AbstractHealthIndicator {
  private final String shardId;
  private final ShardwiseConnectionProvider connections;
  private final ShardedSessions shards;

  ShardHealthIndicator(String shardId, ShardwiseConnectionProvider connections, ShardedSessions shards) {
    super("Shard " + shardId + " is unavailable");
    this.shardId = shardId;
    this.connections = connections;
    this.shards = shards;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) throws Exception {
    Connection c = connections.getConnection(shardId);
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select pg_is_in_recovery(), inet_server_port()")) {
      rs.next();
      boolean standby = rs.getBoolean(1);
      builder.withDetail("primaryPort", rs.getInt(2));
      if (standby) {
        builder.down().withDetail("problem", "the primary of shard " + shardId + " answers as a standby (in recovery)");
      } else {
        builder.up();
      }
    } finally {
      connections.releaseConnection(shardId, c);
    }
    List<Map<String, Object>> replicas = new ArrayList<>();
    for (ReplicaStatus r : shards.replicaStatus()) {
      if (r.shardId().equals(shardId)) {
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("healthy", r.healthy());
        detail.put("reason", r.reason());
        detail.put("lagBytes", r.lagBytes());
        detail.put("lagMillis", r.lagMillis());
        replicas.add(detail);
      }
    }
    builder.withDetail("replicas", replicas);
  }
}
