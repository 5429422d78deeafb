package io.shardwise.hibernate.readwrite.internal;

import io.shardwise.hibernate.NoShardSelectedException;
import io.shardwise.hibernate.ShardUnavailableException;
import io.shardwise.hibernate.internal.ShardPools;
import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.ShardingModel;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.internal.jdbc.NodeBreaker;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import io.shardwise.hibernate.readwrite.Pin;
import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.hibernate.routing.ShardMap;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Where read-only sessions get their connections: a healthy replica that satisfies the thread's
 * read-your-writes requirement (waiting for one at most the pin's bound), else the primary. Either
 * way the connection refuses row locks. Owns the replicas' pools, the selector that balances them,
 * and the monitor that keeps their health and replay positions current.
 */
public final class ReadPath implements AutoCloseable {
  private final ShardPools primaries;
  private final ShardwiseConfig config;
  private final Supplier<ShardMap> maps;
  private final ReplicaPools replicas;
  private final ReplicaSelector selector;
  private final ReplicaMonitor monitor;
  private final Function<String, String> entityOfTable;
  private final LongAdder replicaReads = new LongAdder();
  private final LongAdder primaryReads = new LongAdder();
  private final AtomicInteger noShardTurn = new AtomicInteger();
  private final ShardwiseMetrics metrics;
  private final HedgedReads hedges;

  private ReadPath(ShardwiseConfig config, ShardPools primaries, Supplier<ShardMap> maps,
      Function<String, String> entityOfTable, ShardwiseMetrics metrics) {
    this.metrics = metrics;
    this.primaries = primaries;
    this.config = config;
    this.maps = maps;
    this.entityOfTable = entityOfTable;
    this.replicas = new ReplicaPools(config, primaries::retire, primaries.housekeeper(), metrics);
    this.selector = ReplicaSelector.of(config.leastOutstanding());
    this.monitor = new ReplicaMonitor(config, primaries, replicas, maps, metrics);
    this.hedges = new HedgedReads(config);
  }

  /** Hedged replica reads of this persistence unit. */
  public HedgedReads hedges() {
    return hedges;
  }

  /**
   * The read-only session on this thread was handed {@code handedOut}, the connection Hibernate
   * uses, which stands for {@code fromHere} (a connection from {@link #connection}). Costs one
   * thread-local read unless the session is an attempt of a hedged read.
   */
  public void lent(Connection handedOut, Connection fromHere) {
    HedgedReads.lent(handedOut, ReadOnlyConnection.replicaOf(fromHere));
  }

  /** The read-only session on this thread gives back {@code handedOut} (as given to {@link #lent}). */
  public void returning(Connection handedOut) {
    HedgedReads.returned(handedOut);
  }

  /**
   * Builds the read path and checks every replica once, so that replicas serve from the first read.
   *
   * @param entityOfTable names the entity of a table in row-lock refusals (null when unknown)
   */
  public static ReadPath start(ShardwiseConfig config, ShardPools primaries, Supplier<ShardMap> maps,
      Function<String, String> entityOfTable) {
    return start(config, primaries, maps, entityOfTable, ShardwiseMetrics.none());
  }

  /** The same, reporting reads, replica pools and replica lag to {@code metrics}. */
  public static ReadPath start(ShardwiseConfig config, ShardPools primaries, Supplier<ShardMap> maps,
      Function<String, String> entityOfTable, ShardwiseMetrics metrics) {
    ReadPath path = new ReadPath(config, primaries, maps, entityOfTable, metrics);
    path.monitor.start();
    return path;
  }

  /** A connection for a read-only session on {@code shardId}. */
  public Connection connection(String shardId) {
    ShardMap map = maps.get();
    Pin requirement = ReadYourWritesTracking.readRequirement();
    List<ReplicaNode> nodes = withoutAvoided(replicas.of(map, shardId));
    if (!nodes.isEmpty() && (requirement == null || requirement.primaryUntilMillis() <= System.currentTimeMillis())) {
      long minLsn = requirement == null ? 0 : requirement.minLsn();
      long maxWait = requirement == null ? 0 : requirement.maxWaitMillis();
      Connection replica = replicaConnection(nodes, minLsn, maxWait);
      if (replica != null) {
        replicaReads.increment();
        metrics.readServed(shardId, true);
        return replica;
      }
    }
    primaryReads.increment();
    metrics.readServed(shardId, false);
    if (requirement != null && !nodes.isEmpty()) {
      metrics.pinnedReadOnPrimary(shardId);
    }
    return ReadOnlyConnection.wrap(primaries.primary(map, shardId), null, shardId, entityOfTable, metrics);
  }

  /** {@code nodes} without the replica a retried read moves away from ({@link ReadRetry}), if any. */
  private static List<ReplicaNode> withoutAvoided(List<ReplicaNode> nodes) {
    String avoided = ReadRetry.avoidedNode();
    if (avoided == null) {
      return nodes;
    }
    List<ReplicaNode> others = new ArrayList<>(nodes.size());
    for (ReplicaNode node : nodes) {
      if (!avoided.equals("replica " + JdbcUrls.hostPort(node.url))) {
        others.add(node);
      }
    }
    return others;
  }

  /**
   * A connection for a session opened without a shard: reference tables are on every shard, so
   * any healthy one serves them — shards are taken in turn, a replica first. Every statement is
   * checked before it is sent: one on a sharded entity's table is refused with
   * {@link NoShardSelectedException}.
   */
  public Connection noShardConnection(ShardingModel model) {
    List<String> shardIds = List.copyOf(maps.get().shards().keySet());
    int start = Math.floorMod(noShardTurn.getAndIncrement(), shardIds.size());
    ShardUnavailableException firstFailure = null;
    for (int i = 0; i < shardIds.size(); i++) {
      String shardId = shardIds.get((start + i) % shardIds.size());
      try {
        return ReadOnlyConnection.alsoChecking(connection(shardId), sql -> refuseShardedTable(model, sql));
      } catch (ShardUnavailableException e) {
        if (firstFailure == null) {
          firstFailure = e;
        } else {
          firstFailure.addSuppressed(e);
        }
      }
    }
    throw firstFailure;
  }

  /** Whether {@code sql} reads or writes the table of a sharded (not reference) entity. */
  public static boolean touchesShardedTable(ShardingModel model, String sql) {
    return shardedTableOf(model, sql) != null;
  }

  private record ShardedTable(String table, ShardedEntity entity) {}

  private static ShardedTable shardedTableOf(ShardingModel model, String sql) {
    for (String table : RowLocks.writtenOrReadTables(sql)) {
      String simpleName = model.entityOfTable(table);
      if (simpleName == null) {
        continue;
      }
      for (ShardedEntity entity : model.entities()) {
        if (!entity.reference() && entity.simpleName().equals(simpleName)) {
          return new ShardedTable(table, entity);
        }
      }
    }
    return null;
  }

  private void refuseShardedTable(ShardingModel model, String sql) {
    ShardedTable sharded = shardedTableOf(model, sql);
    if (sharded == null) {
      return;
    }
    ShardedEntity entity = sharded.entity();
    String simpleName = entity.simpleName();
    metrics.refused(ShardwiseMetrics.Refusal.NO_SHARD);
    throw new NoShardSelectedException("[NoShardSelected] " + simpleName + " (table " + sharded.table()
        + ") is sharded by " + simpleName + "." + entity.keyAttribute() + ", but this session has no shard yet and"
        + " this statement names no shard key. A session opened without a shard binds to the shard of the first key"
        + " it uses: find or getReference " + simpleName + " by its key, run a query that pins " + simpleName + "."
        + entity.keyAttribute() + " (= :key or in (...) of one shard), or persist an entity with its key; or choose"
        + " the shard before the session opens (shards.forKey(key), shards.contextForKey(key)). Sessions without a"
        + " shard read @ReferenceTable entities only. Nothing was sent.");
  }

  private Connection replicaConnection(List<ReplicaNode> nodes, long minLsn, long maxWaitMillis) {
    ReplicaNode chosen = selector.choose(nodes, minLsn);
    boolean mustVerify = false;
    if (chosen == null && minLsn != 0 && maxWaitMillis > 0) {
      // only a read allowed to wait asks a replica directly; the others trust the monitor's view
      // rather than pay a replica round trip before going to the primary anyway
      chosen = selector.choose(nodes, 0);
      mustVerify = true;
    }
    if (chosen == null) {
      return null;
    }
    int permit = chosen.breaker.permit();
    if (permit == NodeBreaker.REFUSED) {
      return null; // its breaker is open: the primary serves, at once
    }
    if (permit == NodeBreaker.PROBE) {
      try {
        ShardPools.probe(config, chosen.shardId, chosen.url, chosen.breaker, true);
      } catch (io.shardwise.hibernate.ShardUnavailableException refused) {
        return null;
      }
    }
    Connection c;
    try {
      c = chosen.borrow();
    } catch (SQLException e) {
      chosen.markUnhealthy("no connection: " + e.getMessage());
      chosen.breaker.failed(false, "no connection: " + e.getMessage());
      return null;
    }
    if (mustVerify && !caughtUp(chosen, c, minLsn, maxWaitMillis)) {
      release(chosen, c);
      return null;
    }
    return ReadOnlyConnection.wrap(c, chosen, chosen.shardId, entityOfTable, metrics);
  }

  /** The monitor's view may be a few milliseconds old: ask the replica itself, waiting at most the bound. */
  private static boolean caughtUp(ReplicaNode replica, Connection c, long minLsn, long maxWaitMillis) {
    long deadline = System.nanoTime() + maxWaitMillis * 1_000_000;
    try (Statement s = c.createStatement()) {
      while (true) {
        Object stamp = replica.replayStamp();
        try (ResultSet rs = s.executeQuery("SELECT pg_last_wal_replay_lsn()::text")) {
          rs.next();
          String text = rs.getString(1);
          long replay = text == null ? -1 : LsnText.parse(text);
          replica.raiseReplayLsn(stamp, replay);
          if (replay >= 0 && Long.compareUnsigned(replay, minLsn) >= 0) {
            return true;
          }
        }
        if (System.nanoTime() >= deadline) {
          return false;
        }
        Thread.sleep(2);
      }
    } catch (SQLException e) {
      replica.markUnhealthy("check failed: " + e.getMessage());
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** The server behind a connection from {@link #connection}, as failure messages name it. */
  public String nodeOf(String shardId, Connection connection) {
    ReplicaNode replica = ReadOnlyConnection.replicaOf(connection);
    return replica != null ? "replica " + JdbcUrls.hostPort(replica.url) : primaries.primaryNode(shardId);
  }

  /** The circuit breaker of the server behind a connection from {@link #connection}. */
  public NodeBreaker breakerOf(String shardId, Connection connection) {
    ReplicaNode replica = ReadOnlyConnection.replicaOf(connection);
    return replica != null ? replica.breaker : primaries.breakerOf(shardId);
  }

  /** The statement timer of the server behind a connection from {@link #connection}, or null. */
  public io.shardwise.hibernate.internal.jdbc.StatementTimer statementsOf(String shardId, Connection connection) {
    ReplicaNode replica = ReadOnlyConnection.replicaOf(connection);
    return replica != null ? replica.statements : primaries.statementsOf(shardId);
  }

  /** What the breaker of every replica has seen. */
  public List<io.shardwise.hibernate.NodeStatus> replicaBreakers() {
    ShardMap map = maps.get();
    List<io.shardwise.hibernate.NodeStatus> all = new ArrayList<>();
    for (String shardId : map.shards().keySet()) {
      replicas.of(map, shardId).forEach(r -> all.add(r.breaker.status()));
    }
    return all;
  }

  /** The socket timeout of a connection from {@link #connection} (replica or primary), for failure messages. */
  public long socketTimeoutMs(String shardId, Connection connection) {
    return ReadOnlyConnection.replicaOf(connection) != null ? config.timeouts(shardId, true).socketTimeoutMs()
        : primaries.socketTimeoutMs(shardId);
  }

  /** Returns a connection from {@link #connection}; a replica's count of connections out goes down. */
  public void release(Connection connection) throws SQLException {
    ReplicaNode replica = ReadOnlyConnection.replicaOf(connection);
    if (replica != null) {
      replica.outstanding.decrementAndGet();
    }
    connection.close();
  }

  private static void release(ReplicaNode replica, Connection c) {
    replica.outstanding.decrementAndGet();
    try {
      c.close();
    } catch (SQLException ignored) {
      // returned to a pool that will validate it
    }
  }

  /** What the replica monitor last saw of every replica. */
  public List<ReplicaStatus> replicaStatus() {
    ShardMap map = maps.get();
    List<ReplicaStatus> all = new ArrayList<>();
    for (String shardId : map.shards().keySet()) {
      replicas.of(map, shardId).forEach(r -> all.add(r.status()));
    }
    return all;
  }

  /** Reads served so far: by replicas, and by primaries (no replica, none healthy or caught up, or a TIME pin). */
  public long[] readCounts() {
    return new long[] {replicaReads.sum(), primaryReads.sum()};
  }

  /** Runs a replica check now instead of waiting for the monitor's next round. */
  public void checkReplicasNow() {
    monitor.checkAll();
  }

  @Override
  public void close() {
    hedges.close();
    monitor.close();
    replicas.close();
  }
}
