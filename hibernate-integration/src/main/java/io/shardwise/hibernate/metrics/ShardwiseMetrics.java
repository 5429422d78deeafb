package io.shardwise.hibernate.metrics;

import com.zaxxer.hikari.metrics.MetricsTrackerFactory;
import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.hibernate.routing.ShardMap;
import java.sql.Connection;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * What Shardwise's components report, for one session factory. Chosen once when the session
 * factory starts: a do-nothing recorder ({@link #none()}) when no Micrometer {@code MeterRegistry}
 * is configured, so that a component never tests a flag on its hot path; otherwise one that
 * registers Micrometer meters (docs/operations.md lists them). Applications do not implement this;
 * they give a registry to {@code Shardwise.configure().meterRegistry(...)} or
 * {@link io.shardwise.hibernate.ShardwiseSettings#METER_REGISTRY}.
 *
 * <p>Shard ids passed to the per-call methods are the router's own strings: implementations find
 * their meters by identity first, without building tags or looking up a map.
 */
public interface ShardwiseMetrics {

  /** Records nothing and costs a call to an empty method. */
  static ShardwiseMetrics none() {
    return NoMetrics.INSTANCE;
  }

  /** A session opened on {@code shardId} ({@code null} for {@link SessionKind#NO_SHARD}). */
  void sessionOpened(SessionKind kind, String shardId);

  /** A read-only connection handed out for {@code shardId}, by a replica or by the primary. */
  void readServed(String shardId, boolean byReplica);

  /** A read of a read-your-writes scope that a primary served because the scope's pin required it. */
  void pinnedReadOnPrimary(String shardId);

  /** HikariCP's metrics tracker for one pool, its meters tagged with the shard, role and node; null for none. */
  MetricsTrackerFactory poolTracker(String shardId, String role, String node);

  /** Publishes lag and state gauges of a replica (once; later calls for the same node do nothing). */
  void watchReplica(String shardId, String node, Supplier<ReplicaStatus> status);

  /** Removes the gauges of a replica that left the shard map. */
  void forgetReplica(String shardId, String node);

  /** A scatter-gather query sent to {@code shards} shards. */
  void scatterFanOut(int shards);

  /** One shard's part of a scatter-gather query took {@code nanos}, and failed or not. */
  void scatterShard(String shardId, long nanos, boolean failed);

  /** How a cross-shard transaction ended, counted once for each shard it touched. */
  void crossShardOutcome(CrossShardOutcome outcome, Set<String> shardIds);

  /**
   * Publishes the shard map routing uses now: its version, and the buckets each shard owns (shards
   * that a later map adds get their gauge when {@link #shardMapPublished} sees them).
   */
  void watchShardMap(Supplier<ShardMap> current);

  /** A shard map snapshot was published to this session factory's router (counted when its version is new). */
  void shardMapPublished(ShardMap map);

  /**
   * Publishes, per shard, the prepared (in-doubt) transactions on its primary. {@code primaryOf} is
   * asked for a connection only when a registry reads the gauge, and at most once per shard every
   * {@code cacheMillis}; never on a request path.
   */
  void watchPreparedTransactions(Function<String, Connection> primaryOf, long cacheMillis);

  /** Publishes, per shard, the read-your-writes pins in force now; {@code pinsOn} is read on scrape. */
  void watchPins(java.util.function.ToIntFunction<String> pinsOn);

  /**
   * Publishes the sagas in the control database by state. {@code control} is asked for a connection
   * only when a registry reads a gauge, at most once every {@code cacheMillis}.
   */
  void watchSagas(java.util.function.Supplier<Connection> control, long cacheMillis);

  /** A guard refused an operation; one counter increment. */
  void refused(Refusal kind);

  /** The {@code kind} tag of {@code shardwise.guard.refusals}. */
  enum Refusal {
    /** No shard key where one is needed (a null key, a repository call or query that names none). */
    MISSING_KEY("missing-key"),
    /** A key or entity of another shard than the session's. */
    WRONG_SHARD("wrong-shard"),
    /** A sharded table touched by a session opened without a shard. */
    NO_SHARD("no-shard"),
    /** One repository call given entities of two shards (a call is one transaction on one shard). */
    TWO_SHARDS("two-shards"),
    /** A row lock ({@code FOR UPDATE}, ...) asked of a read-only session. */
    ROW_LOCK_READ_ONLY("row-lock-read-only");

    private final String tag;

    Refusal(String tag) {
      this.tag = tag;
    }

    public String tag() {
      return tag;
    }
  }

  /** The {@code outcome} tag of {@code shardwise.crossshard.transactions}. */
  enum CrossShardOutcome {
    COMMITTED("committed"), ABORTED("aborted"), IN_DOUBT("in-doubt");

    private final String tag;

    CrossShardOutcome(String tag) {
      this.tag = tag;
    }

    public String tag() {
      return tag;
    }
  }
}
