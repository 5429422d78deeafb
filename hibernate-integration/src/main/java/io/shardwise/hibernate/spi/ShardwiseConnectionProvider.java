package io.shardwise.hibernate.spi;

import io.shardwise.hibernate.internal.ShardPools;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.internal.jdbc.ShardConnection;
import io.shardwise.hibernate.internal.wiring.ShardwiseComponents;
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

  @Override
  public void configure(Map<String, Object> settings) {
    components = ShardwiseComponents.start(ShardwiseConfig.from(settings));
    primaries = components.pools();
    reads = components.readPath();
    observations = components.observations();
    schemaGate = components.schemaGate();
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
   * tables only (see {@link #getReadOnlyConnection}).
   */
  @Override
  public Connection getConnection(String shardId) {
    if (ShardContextResolver.NO_SHARD.equals(shardId)) {
      return components().noShardConnection();
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
      reads.release(connection);
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
   * entity's table with {@link io.shardwise.hibernate.NoShardSelectedException} before sending it.
   */
  @Override
  public Connection getReadOnlyConnection(String shardId) {
    if (ShardContextResolver.NO_SHARD.equals(shardId)) {
      return components().noShardConnection();
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
