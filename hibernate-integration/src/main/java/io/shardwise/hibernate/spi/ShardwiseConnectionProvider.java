package io.shardwise.hibernate.spi;

import io.shardwise.hibernate.internal.LateBoundConnection;
import io.shardwise.hibernate.internal.ShardPools;
import io.shardwise.hibernate.internal.ShardSessions;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.internal.jdbc.ShardConnection;
import io.shardwise.hibernate.wiring.internal.ShardwiseComponents;
import io.shardwise.hibernate.metrics.ShardwiseObservations;
import io.shardwise.hibernate.readwrite.internal.ReadPath;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import org.hibernate.engine.jdbc.connections.spi.MultiTenantConnectionProvider;
import org.hibernate.service.spi.Configurable;
import org.hibernate.service.spi.Stoppable;

/**
 * Hibernate's connection source when Shardwise is on: the tenant identifier of a session is its
 * shard, and each shard's primary has its own HikariCP pool. Sessions opened read-only get their
 * connection from {@link #getReadOnlyConnection}: a healthy replica that has replayed what the
 * session's consistency scope wrote, else the primary — and never one that lets a row lock through.
 *
 * <p>Set {@code hibernate.multi_tenant_connection_provider} to this class (the fluent builder does).
 */
public final class ShardwiseConnectionProvider implements MultiTenantConnectionProvider<String>, Configurable, Stoppable {
  private static final long serialVersionUID = 1L;

  private transient ShardwiseComponents components;
  private transient ShardPools primaries;
  private transient ReadPath reads;
  /** Null when tracing is off. */
  private transient ShardwiseObservations observations;
  private transient io.shardwise.hibernate.migrations.internal.SchemaGate schemaGate;
  /** Where the connections of sessions opened without a shard come from: read-write ones, then read-only ones. */
  private transient LateBoundConnection.Source lateBound;
  private transient LateBoundConnection.Source lateBoundReadOnly;

  @Override
  public void configure(Map<String, Object> settings) {
    components = ShardwiseComponents.start(ShardwiseConfig.from(settings));
    primaries = components.pools();
    reads = components.readPath();
    observations = components.observations();
    schemaGate = components.schemaGate();
    lateBound = new LateBoundSource(false);
    lateBoundReadOnly = new LateBoundSource(true);
  }

  /** The connections of a session of no shard: the shard's, once the session bound, of the session's kind. */
  private final class LateBoundSource implements LateBoundConnection.Source {
    private final boolean readOnly;

    LateBoundSource(boolean readOnly) {
      this.readOnly = readOnly;
    }

    @Override
    public Connection acquire(String shardId) {
      return readOnly ? getReadOnlyConnection(shardId) : getConnection(shardId);
    }

    @Override
    public void release(String shardId, Connection connection) throws SQLException {
      if (readOnly) {
        releaseReadOnlyConnection(shardId, connection);
      } else {
        releaseConnection(shardId, connection);
      }
    }

    @Override
    public void releaseUnbound(Connection connection) throws SQLException {
      reads.release(connection);
    }

    @Override
    public boolean touchesShardedTable(String sql) {
      return ReadPath.touchesShardedTable(components.model(), sql);
    }
  }

  /**
   * A session of no shard's connection: reference tables only until the session binds to the shard
   * of its first key, then that shard's; the bound shard's from the start for a session that bound
   * before it acquired this connection.
   */
  private Connection lateBound(LateBoundConnection.Source source) {
    String bound = ShardSessions.acquiringFor();
    return bound != null ? LateBoundConnection.boundTo(source, bound)
        : LateBoundConnection.unbound(source, components().noShardConnection());
  }

  private static void releaseLateBound(Connection connection) throws SQLException {
    ((LateBoundConnection) connection).release();
  }

  private ShardwiseComponents components() {
    if (components == null) {
      throw new IllegalStateException("ShardwiseConnectionProvider was not configured by Hibernate");
    }
    return components;
  }

  /** Schema tooling and JDBC metadata: the shard that schema management targets now, else the first shard. */
  @Override
  public Connection getAnyConnection() {
    return components().anyConnection();
  }

  @Override
  public void releaseAnyConnection(Connection connection) throws SQLException {
    connection.close();
  }

  /**
   * The shard's primary, wrapped so that a connection lost while a statement or a commit runs is a
   * {@link io.shardwise.hibernate.ShardUnavailableException} naming the shard and the server; for a
   * session of {@link ShardContextResolver#NO_SHARD no shard}, a connection that serves reference
   * tables only until the session binds to the shard of its first key, then that shard's primary
   * (see {@link #getReadOnlyConnection}).
   */
  @Override
  public Connection getConnection(String shardId) {
    if (ShardContextResolver.NO_SHARD.equals(shardId)) {
      return lateBound(lateBound);
    }
    schemaGate.admit(shardId);
    Connection connection = primaries.sessionConnection(shardId);
    if (observations != null) {
      observations.connectionServed(shardId, primaries.primaryNode(shardId));
    }
    return connection;
  }

  @Override
  public void releaseConnection(String shardId, Connection connection) throws SQLException {
    if (ShardContextResolver.NO_SHARD.equals(shardId)) {
      releaseLateBound(connection);
      return;
    }
    try {
      connection.close();
    } finally {
      primaries.leave(connection);
    }
  }

  /**
   * A replica of the shard, else its primary. For a session of no shard: a replica (else the
   * primary) of some healthy shard, taken in turn, that refuses every statement on a sharded
   * entity's table with {@link io.shardwise.hibernate.NoShardSelectedException} before sending it,
   * until the session binds to the shard of its first key: then a replica of that shard (else its
   * primary), chosen as for a read-only session opened on it.
   */
  @Override
  public Connection getReadOnlyConnection(String shardId) {
    if (ShardContextResolver.NO_SHARD.equals(shardId)) {
      return lateBound(lateBoundReadOnly);
    }
    schemaGate.admit(shardId);
    Connection connection = reads.connection(shardId);
    if (observations != null) {
      observations.connectionServed(shardId, reads.nodeOf(shardId, connection));
    }
    Connection handedOut = ShardConnection.forReadOnlySession(ShardConnection.wrap(connection, shardId,
        () -> reads.nodeOf(shardId, connection), reads.socketTimeoutMs(shardId, connection),
        reads.breakerOf(shardId, connection), reads.statementsOf(shardId, connection)));
    reads.lent(handedOut, connection);
    return handedOut;
  }

  @Override
  public void releaseReadOnlyConnection(String shardId, Connection connection) throws SQLException {
    reads.returning(connection);
    if (ShardContextResolver.NO_SHARD.equals(shardId)) {
      releaseLateBound(connection);
      return;
    }
    try {
      reads.release(ShardConnection.released(connection));
    } catch (SQLException e) {
      if (!ShardConnection.wasAborted(connection)) {
        throw e;
      }
      // the pool's reset of an aborted connection fails; the pool evicts it, and the session's caller knows why
    }
  }

  @Override
  public boolean supportsAggressiveRelease() {
    return false;
  }

  @Override
  public boolean isUnwrappableAs(Class<?> type) {
    return type.isInstance(this) || (components != null && type.isInstance(components));
  }

  /** This provider, or (for Shardwise's own entry points) the components it was configured with. */
  @Override
  public <T> T unwrap(Class<T> type) {
    if (type.isInstance(this)) {
      return type.cast(this);
    }
    if (components != null && type.isInstance(components)) {
      return type.cast(components);
    }
    throw new IllegalArgumentException("ShardwiseConnectionProvider cannot be unwrapped as " + type.getName());
  }

  @Override
  public void stop() {
    if (components != null) {
      components.close();
    }
  }
}
