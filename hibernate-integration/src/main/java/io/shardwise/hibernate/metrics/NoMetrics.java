package io.shardwise.hibernate.metrics;

import com.zaxxer.hikari.metrics.MetricsTrackerFactory;
import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.hibernate.routing.ShardMap;
import java.sql.Connection;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToIntFunction;
import java.util.function.Supplier;

/** Metrics off: every method returns at once. */
final class NoMetrics implements ShardwiseMetrics {
  static final NoMetrics INSTANCE = new NoMetrics();

  private NoMetrics() {}

  @Override
  public void sessionOpened(SessionKind kind, String shardId) {}

  @Override
  public void readServed(String shardId, boolean byReplica) {}

  @Override
  public void pinnedReadOnPrimary(String shardId) {}

  @Override
  public MetricsTrackerFactory poolTracker(String shardId, String role, String node) {
    return null;
  }

  @Override
  public void watchReplica(String shardId, String node, Supplier<ReplicaStatus> status) {}

  @Override
  public void forgetReplica(String shardId, String node) {}

  @Override
  public void scatterFanOut(int shards) {}

  @Override
  public void scatterShard(String shardId, long nanos, boolean failed) {}

  @Override
  public void crossShardOutcome(CrossShardOutcome outcome, Set<String> shardIds) {}

  @Override
  public void watchShardMap(Supplier<ShardMap> current) {}

  @Override
  public void shardMapPublished(ShardMap map) {}

  @Override
  public void watchPreparedTransactions(Function<String, Connection> primaryOf, long cacheMillis) {}

  @Override
  public void watchPins(ToIntFunction<String> pinsOn) {}

  @Override
  public void watchSagas(Supplier<Connection> control, long cacheMillis) {}

  @Override
  public void refused(Refusal kind) {}
}
