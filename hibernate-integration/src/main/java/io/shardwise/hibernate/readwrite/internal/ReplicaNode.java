package io.shardwise.hibernate.readwrite.internal;

import io.shardwise.hibernate.internal.RetiringPool;
import io.shardwise.hibernate.internal.ShardPools;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.internal.jdbc.NodeBreaker;
import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One streaming replica of a shard: its pool (created on first use), the monitor's latest view of
 * its health and replay position, and the number of connections it has out.
 *
 * <p>The replay position is whatever the replica last said, not the highest it ever said: the
 * monitor stores every reading, lower ones included (a replica rebuilt or restored from an older
 * backup behind the same URL replays from further back, and must not look caught up). A read that
 * asks the replica itself may only raise the position, and only if no other reading was stored
 * since it looked ({@link #replayStamp()} / {@link #raiseReplayLsn}), so a stale answer never
 * overwrites a fresher one.
 */
final class ReplicaNode {
  final String shardId;
  final String url;
  final AtomicInteger outstanding = new AtomicInteger();
  private final ShardwiseConfig config;
  /** The circuit breaker in front of this replica: while it is open, reads skip the replica. */
  final NodeBreaker breaker;
  /** Times the statements of sessions reading from this replica; null without metrics. */
  final io.shardwise.hibernate.internal.jdbc.StatementTimer statements;
  /** Recent hedgeable read-only units of work on this replica, for the hedge delay ({@link HedgedReads}). */
  final ReadLatency latency = new ReadLatency();
  private volatile RetiringPool pool;
  private boolean leftMap;

  /** One reading of the replay position; a new object per reading, so a stale raise cannot land. */
  private record Replay(long lsn) {}

  private final AtomicReference<Replay> replay = new AtomicReference<>(new Replay(-1));

  // written by the monitor (and by a failed checkout), read on every routing decision
  volatile boolean healthy;
  volatile String reason = "not checked yet";
  volatile long lagBytes = -1;
  volatile long lagMillis = -1;
  volatile long checkedAt;
  volatile long caughtUpAt;
  /** The monitor's own previous reading (monitor thread only), to tell a replica that went back. */
  long monitorReplayLsn = -1;

  private final ShardwiseMetrics metrics;
  private final ScheduledExecutorService housekeeper;

  ReplicaNode(String shardId, String url, ShardwiseConfig config, ScheduledExecutorService housekeeper,
      ShardwiseMetrics metrics) {
    this.housekeeper = housekeeper;
    this.metrics = metrics;
    this.shardId = shardId;
    this.url = url;
    this.config = config;
    this.healthy = false;
    this.breaker = ShardPools.newBreaker(config, shardId, "replica " + JdbcUrls.hostPort(url),
        config.timeouts(shardId, true).connectionTimeoutMs());
    this.breaker.whenSilent(() -> {
      RetiringPool lending = pool;
      if (lending != null) {
        ShardPools.evictIdle(lending);
      }
    });
    this.statements = io.shardwise.hibernate.metrics.internal.StatementTimers.of(metrics, shardId, "replica",
        JdbcUrls.hostPort(url));
  }

  /** The replay position last stored (-1 when unknown): what routing decisions compare pins with. */
  long replayLsn() {
    return replay.get().lsn();
  }

  /** The monitor's reading: stored as it is, lower than before or not. */
  void replayedTo(long lsn) {
    replay.set(new Replay(lsn));
  }

  /** The current reading, to hand back to {@link #raiseReplayLsn} after asking the replica directly. */
  Object replayStamp() {
    return replay.get();
  }

  /** Raises the position to what a reader saw, unless another reading was stored after {@code stamp}. */
  void raiseReplayLsn(Object stamp, long lsn) {
    Replay before = (Replay) stamp;
    if (lsn > before.lsn()) {
      replay.compareAndSet(before, new Replay(lsn));
    }
  }

  Connection borrow() throws SQLException {
    RetiringPool p = pool;
    if (p == null) {
      synchronized (this) {
        if (leftMap) {
          throw new SQLException("replica " + JdbcUrls.redact(url) + " of shard " + shardId + " left the shard map");
        }
        p = pool;
        if (p == null) {
          p = new RetiringPool(url, ShardPools.newPool(config, "shardwise-" + shardId + "-replica-"
              + JdbcUrls.hostPort(url), url, config.timeouts(shardId, true), true,
              metrics.poolTracker(shardId, "replica", JdbcUrls.hostPort(url)), housekeeper));
          pool = p;
        }
      }
    }
    Connection c;
    breaker.checkoutStarted();
    try {
      c = p.borrow();
    } catch (SQLException e) {
      if (breaker.checkoutEnded()) {
        throw silentDuringCheckout();
      }
      throw e;
    }
    if (breaker.checkoutEnded()) {
      if (c != null) {
        c.close();
      }
      throw silentDuringCheckout();
    }
    if (c == null) {
      throw new SQLException("replica " + JdbcUrls.redact(url) + " of shard " + shardId + " left the shard map");
    }
    outstanding.incrementAndGet();
    return c;
  }

  private SQLException silentDuringCheckout() {
    return new SQLException("replica " + JdbcUrls.redact(url) + " of shard " + shardId + " was found silent during"
        + " the checkout: " + breaker.status().lastFailure());
  }

  /** The replica is no longer in the shard map: it lends nothing more; its pool, if any, to retire. */
  synchronized RetiringPool leaveMap() {
    leftMap = true;
    healthy = false;
    reason = "left the shard map";
    return pool;
  }

  void markUnhealthy(String why) {
    healthy = false;
    reason = why;
  }

  ReplicaStatus status() {
    long lsn = replayLsn();
    return new ReplicaStatus(shardId, JdbcUrls.redact(url), healthy, reason,
        lsn < 0 ? null : LsnText.format(lsn), lagBytes, lagMillis, checkedAt);
  }

  synchronized void close() {
    if (pool != null) {
      pool.dataSource().close();
      pool = null;
    }
  }
}
