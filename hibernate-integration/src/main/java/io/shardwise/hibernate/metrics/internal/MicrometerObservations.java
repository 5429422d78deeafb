package io.shardwise.hibernate.metrics.internal;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.metrics.SessionKind;
import io.shardwise.hibernate.metrics.ShardwiseObservations;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import java.util.function.Supplier;

/**
 * Shardwise's observations in a Micrometer {@code ObservationRegistry}, with OpenTelemetry's
 * database attributes and Shardwise's own (docs/operations.md, "Traces", has the table). Session and
 * scatter observations are opened in scope on their thread, so that the connection a session takes
 * is reported on it and the application's own observations inside the work nest beneath it.
 */
final class MicrometerObservations implements ShardwiseObservations {
  static final String SESSION = "shardwise.session";
  static final String SCATTER = "shardwise.scatter";
  static final String SCATTER_SHARD = "shardwise.scatter.shard";
  static final String CROSS_SHARD = "shardwise.crossshard";
  static final String PARTICIPANT = "shardwise.crossshard.participant";

  static final String DB_SYSTEM = "db.system.name";
  static final String POSTGRESQL = "postgresql";
  static final String DB_NAMESPACE = "db.namespace";
  static final String DB_OPERATION = "db.operation.name";
  static final String DB_QUERY = "db.query.text";
  static final String SERVER_ADDRESS = "server.address";
  static final String SERVER_PORT = "server.port";
  static final String SHARD = "shardwise.shard";
  static final String ROLE = "shardwise.role";
  static final String NODE = "shardwise.node";
  static final String KIND = "shardwise.session.kind";
  static final String READ_ONLY = "shardwise.read_only";
  static final String FAN_OUT = "shardwise.fanout";
  static final String TRANSACTION = "shardwise.transaction";
  static final String OUTCOME = "shardwise.outcome";

  private final ObservationRegistry registry;
  private final Supplier<ShardMap> maps;

  private MicrometerObservations(ObservationRegistry registry, Supplier<ShardMap> maps) {
    this.registry = registry;
    this.maps = maps;
  }

  /** Observations in {@code registry}, a Micrometer {@code ObservationRegistry} (checked by the caller). */
  static ShardwiseObservations bind(Object registry, Supplier<ShardMap> maps) {
    return new MicrometerObservations((ObservationRegistry) registry, maps);
  }

  /**
   * Whether {@code registry} is Micrometer's no-op registry, which can never record. A registry that
   * has no handler yet is not: handlers may be added after the session factory starts.
   */
  static boolean isNoop(Object registry) {
    return registry == ObservationRegistry.NOOP;
  }

  @Override
  public Observed session(SessionKind kind, String shardId, boolean readOnly) {
    return new Scoped(onShard(SESSION, new SessionContext(shardId), shardId)
        .lowCardinalityKeyValue(KIND, kind.tag())
        .lowCardinalityKeyValue(READ_ONLY, Boolean.toString(readOnly))
        .contextualName("session " + shardId).start());
  }

  @Override
  public Observed scatter(String query) {
    return new Scoped(postgres(SCATTER, new Observation.Context()).lowCardinalityKeyValue(DB_OPERATION, "SELECT")
        .highCardinalityKeyValue(DB_QUERY, query).contextualName("scatter").start());
  }

  @Override
  public void fannedOut(Observed scatter, int shards) {
    ((Unscoped) scatter).observation.lowCardinalityKeyValue(FAN_OUT, Integer.toString(shards));
  }

  @Override
  public Observed scatterShard(Observed scatter, String shardId) {
    return new Scoped(onShard(SCATTER_SHARD, new Observation.Context(), shardId).lowCardinalityKeyValue(DB_OPERATION,
        "SELECT").parentObservation(((Unscoped) scatter).observation).contextualName("scatter " + shardId).start());
  }

  @Override
  public Observed crossShard(String what) {
    return new Scoped(postgres(CROSS_SHARD, new Observation.Context()).lowCardinalityKeyValue(TRANSACTION, what)
        .contextualName("cross-shard " + what).start());
  }

  @Override
  public Observed participant(Observed transaction, String shardId) {
    ShardDescriptor shard = maps.get().shards().get(shardId);
    Observation observation = onShard(PARTICIPANT, new Observation.Context(), shardId)
        .parentObservation(((Unscoped) transaction).observation)
        .contextualName("participant " + shardId);
    if (shard != null) {
      node(observation, "primary", JdbcUrls.hostPort(shard.primaryUrl()));
    }
    return new Unscoped(observation.start());
  }

  @Override
  public void connectionServed(String shardId, String node) {
    Observation current = registry.getCurrentObservation();
    if (current != null && current.getContext() instanceof SessionContext session && session.shardId.equals(shardId)
        && !session.served) {
      session.served = true;
      int space = node.indexOf(' ');
      node(current, node.substring(0, space), node.substring(space + 1));
    }
  }

  /** An observation of work on one shard: the database attributes of its primary's URL and the shard. */
  private Observation onShard(String name, Observation.Context context, String shardId) {
    Observation observation = postgres(name, context).lowCardinalityKeyValue(SHARD, shardId);
    ShardDescriptor shard = maps.get().shards().get(shardId);
    String database = shard == null ? null : JdbcUrls.database(shard.primaryUrl());
    if (database != null) {
      observation.lowCardinalityKeyValue(DB_NAMESPACE, database);
    }
    return observation;
  }

  /** An observation of work on PostgreSQL, not started yet. */
  private Observation postgres(String name, Observation.Context context) {
    return Observation.createNotStarted(name, () -> context, registry).lowCardinalityKeyValue(DB_SYSTEM, POSTGRESQL);
  }

  private static void node(Observation observation, String role, String hostPort) {
    observation.lowCardinalityKeyValue(ROLE, role).lowCardinalityKeyValue(NODE, hostPort);
    int colon = hostPort.lastIndexOf(':');
    observation.highCardinalityKeyValue(SERVER_ADDRESS, colon < 0 ? hostPort : hostPort.substring(0, colon));
    if (colon >= 0) {
      observation.highCardinalityKeyValue(SERVER_PORT, hostPort.substring(colon + 1));
    }
  }

  /** A session's context: which shard, and whether its connection's server is known yet. */
  private static final class SessionContext extends Observation.Context {
    final String shardId;
    boolean served;

    SessionContext(String shardId) {
      this.shardId = shardId;
    }
  }

  /** An observation that is not the thread's current one (a participant: several are open at once). */
  private static class Unscoped implements Observed {
    final Observation observation;

    Unscoped(Observation observation) {
      this.observation = observation;
    }

    @Override
    public void error(Throwable failure) {
      observation.error(failure);
    }

    @Override
    public void outcome(String outcome) {
      observation.lowCardinalityKeyValue(OUTCOME, outcome);
    }

    @Override
    public void stop() {
      observation.stop();
    }
  }

  /** An observation that is the thread's current one from its start to its stop. */
  private static final class Scoped extends Unscoped {
    private final Observation.Scope scope;

    Scoped(Observation observation) {
      super(observation);
      this.scope = observation.openScope();
    }

    @Override
    public void stop() {
      scope.close();
      super.stop();
    }
  }
}
