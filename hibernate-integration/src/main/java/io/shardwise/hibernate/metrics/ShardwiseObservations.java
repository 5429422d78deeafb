package io.shardwise.hibernate.metrics;

/**
 * Where Shardwise's components report what they are doing, for traces: a Micrometer
 * {@code Observation} around each unit of work on a shard, each scatter-gather query (one child per
 * shard) and each cross-shard transaction (one child per participant). docs/operations.md lists the
 * observations and their keys.
 *
 * <p>There is no do-nothing implementation: without an {@code ObservationRegistry} the components
 * hold {@code null} instead, so tracing that is off costs one null check where it would start.
 * Applications do not implement this; they give a registry to
 * {@code Shardwise.configure().observationRegistry(...)} or
 * {@link io.shardwise.hibernate.ShardwiseSettings#OBSERVATION_REGISTRY}.
 */
public interface ShardwiseObservations {

  /**
   * A unit of work on {@code shardId} starts on this thread; it is the thread's current observation
   * until {@link Observed#stop()}, so the connection it takes is reported on it ({@link #connectionServed}).
   */
  Observed session(SessionKind kind, String shardId, boolean readOnly);

  /** A scatter-gather query of {@code query} (HQL) starts on this thread. */
  Observed scatter(String query);

  /** {@code scatter} was planned and is sent to {@code shards} shards. */
  void fannedOut(Observed scatter, int shards);

  /** One shard's part of {@code scatter} starts on this thread (a fan-out thread): its child. */
  Observed scatterShard(Observed scatter, String shardId);

  /** A cross-shard transaction ({@code what}: atomically, a reference-table write) starts on this thread. */
  Observed crossShard(String what);

  /** A shard joins {@code transaction} as a participant (its session was opened); stopped when the transaction ends. */
  Observed participant(Observed transaction, String shardId);

  /**
   * The server behind the connection just handed out on this thread for {@code shardId}, as
   * {@code "primary host:port"} or {@code "replica host:port"}: recorded on the thread's current
   * session observation, if it is one of this shard's.
   */
  void connectionServed(String shardId, String node);

  /** One observation in progress. */
  interface Observed {
    /** Records the failure that ended it (the last one recorded wins). */
    void error(Throwable failure);

    /** How it ended, when more than success or failure is known (a cross-shard transaction's outcome). */
    void outcome(String outcome);

    /** Ends it; a session or scatter observation also stops being the thread's current one. */
    void stop();
  }
}
