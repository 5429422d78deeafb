package io.shardwise.hibernate.readwrite.internal;

import com.zaxxer.hikari.HikariDataSource;
import io.shardwise.hibernate.internal.ShardPools;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.readwrite.ReplicaStatus;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One streaming replica of a shard: its pool (created on first use), the monitor's latest view of
 * its health and replay position, and the number of connections it has out.
 */
final class ReplicaNode {
  final String shardId;
  final String url;
  final AtomicInteger outstanding = new AtomicInteger();
  private final ShardwiseConfig config;
  private volatile HikariDataSource pool;

  // written by the monitor (and by a failed checkout), read on every routing decision
  volatile boolean healthy;
  volatile String reason = "not checked yet";
  volatile long replayLsn = -1;
  volatile long lagBytes = -1;
  volatile long lagMillis = -1;
  volatile long checkedAt;
  volatile long caughtUpAt;

  ReplicaNode(String shardId, String url, ShardwiseConfig config) {
    this.shardId = shardId;
    this.url = url;
    this.config = config;
    this.healthy = false;
  }

  Connection borrow() throws SQLException {
    HikariDataSource ds = pool;
    if (ds == null) {
      synchronized (this) {
        ds = pool;
        if (ds == null) {
          ds = ShardPools.newPool(config, "shardwise-" + shardId + "-replica-" + JdbcUrls.hostPort(url), url,
              config.replicaConnectionTimeoutMs(), true);
          pool = ds;
        }
      }
    }
    Connection c = ds.getConnection();
    outstanding.incrementAndGet();
    return c;
  }

  void markUnhealthy(String why) {
    healthy = false;
    reason = why;
  }

  ReplicaStatus status() {
    return new ReplicaStatus(shardId, JdbcUrls.redact(url), healthy, reason,
        replayLsn < 0 ? null : LsnText.format(replayLsn), lagBytes, lagMillis, checkedAt);
  }

  synchronized void close() {
    if (pool != null) {
      pool.close();
      pool = null;
    }
  }
}
