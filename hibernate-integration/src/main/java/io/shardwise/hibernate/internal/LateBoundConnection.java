package io.shardwise.hibernate.internal;

import io.shardwise.hibernate.ShardUnavailableException;
import io.shardwise.hibernate.internal.jdbc.ForwardingConnection;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Array;
import java.sql.Blob;
import java.sql.CallableStatement;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.NClob;
import java.sql.PreparedStatement;
import java.sql.SQLClientInfoException;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.SQLXML;
import java.sql.Savepoint;
import java.sql.Statement;
import java.sql.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;

/**
 * The connection of a session opened without a shard. Until the session binds, it is a connection
 * that serves {@code @ReferenceTable} reads (some shard's replica) and refuses sharded tables; when
 * the session binds to a shard ({@link #bindTo}), it lets that connection go and continues on the
 * bound shard's connection (primary, or a replica for a read-only session), carrying over what the
 * session set: auto-commit, read-only, isolation. Nothing sharded can have run before, so nothing
 * of the session's work is left behind on the first connection but reference reads.
 *
 * <p>A statement on a sharded table prepared before the binding is one whose key value Hibernate
 * binds only after preparing it (a query that pins the key): it is prepared for real when it runs,
 * on the bound shard — the key's value binds the session as it is set. Run without a binding, it
 * is prepared on the first connection, which refuses it naming the entity. Nothing is sent for it
 * before.
 */
public final class LateBoundConnection extends ForwardingConnection {

  /** Where a session's connections come from and go to; the same calls as the connection provider's. */
  public interface Source {
    /** The connection of a session on {@code shardId} (of the session's read-only kind). */
    Connection acquire(String shardId);

    /** Gives back a connection of {@link #acquire}. */
    void release(String shardId, Connection connection) throws SQLException;

    /** Gives back the connection a session of no shard had before it bound. */
    void releaseUnbound(Connection connection) throws SQLException;

    /** Whether {@code sql} reads or writes a sharded entity's table. */
    boolean touchesShardedTable(String sql);
  }

  private final Source source;
  private String shardId;
  private Boolean readOnlySet;
  private Integer isolationSet;

  private LateBoundConnection(Source source, Connection target, String shardId) {
    super(target);
    this.source = source;
    this.shardId = shardId;
  }

  /** A connection for a session of no shard that has not bound yet: {@code unbound} serves reference tables. */
  public static LateBoundConnection unbound(Source source, Connection unbound) {
    return new LateBoundConnection(source, unbound, null);
  }

  /** A connection for a session of no shard that bound to {@code shardId} earlier (its connection was released since). */
  public static LateBoundConnection boundTo(Source source, String shardId) {
    return new LateBoundConnection(source, source.acquire(shardId), shardId);
  }

  /** The shard this connection serves, or null before its session bound. */
  public String shardId() {
    return shardId;
  }

  /**
   * Continues on {@code shardId}'s connection: the reference-reading one is rolled back (it only
   * read) and released, and the new one gets the session's auto-commit, read-only and isolation.
   */
  public void bindTo(String shard) {
    if (shardId != null) {
      throw new IllegalStateException("This connection is bound to shard '" + shardId + "' already");
    }
    Connection before = target;
    boolean autoCommit;
    try {
      autoCommit = before.getAutoCommit();
    } catch (SQLException e) {
      throw new ShardUnavailableException("The session could not move to shard '" + shard + "': its first"
          + " connection failed (" + e.getMessage() + "). Nothing sharded was sent; retry the unit of work.", e);
    }
    Connection next = source.acquire(shard);
    try {
      if (isolationSet != null) {
        next.setTransactionIsolation(isolationSet);
      }
      if (readOnlySet != null) {
        next.setReadOnly(readOnlySet);
      }
      next.setAutoCommit(autoCommit);
    } catch (SQLException | RuntimeException e) {
      try {
        source.release(shard, next);
      } catch (SQLException | RuntimeException releaseFailure) {
        e.addSuppressed(releaseFailure);
      }
      throw new ShardUnavailableException("The session could not move to shard '" + shard + "': its connection"
          + " refused the session's settings (" + e.getMessage() + "). Nothing sharded was sent; retry the unit of"
          + " work.", e);
    }
    target = next;
    shardId = shard;
    try {
      if (!autoCommit) {
        before.rollback();
      }
      source.releaseUnbound(before);
    } catch (SQLException | RuntimeException ignored) {
      // it served reference reads only, all of them answered already; the pool evicts it if it is broken
    }
  }

  /** Gives the current connection back where it came from. */
  public void release() throws SQLException {
    if (shardId == null) {
      source.releaseUnbound(target);
    } else {
      source.release(shardId, target);
    }
  }

  /** The connection beneath, for the release bookkeeping of its pool. */
  public Connection target() {
    return target;
  }

  // --- prepared statements: held while unbound ---------------------------------------------

  @Override
  public PreparedStatement prepareStatement(String sql) throws SQLException {
    return deferredIfUnbound(sql, c -> c.prepareStatement(sql));
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency)
      throws SQLException {
    return deferredIfUnbound(sql, c -> c.prepareStatement(sql, resultSetType, resultSetConcurrency));
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency,
      int resultSetHoldability) throws SQLException {
    return deferredIfUnbound(sql, c -> c.prepareStatement(sql, resultSetType, resultSetConcurrency,
        resultSetHoldability));
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int autoGeneratedKeys) throws SQLException {
    return deferredIfUnbound(sql, c -> c.prepareStatement(sql, autoGeneratedKeys));
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int[] columnIndexes) throws SQLException {
    return deferredIfUnbound(sql, c -> c.prepareStatement(sql, columnIndexes));
  }

  @Override
  public PreparedStatement prepareStatement(String sql, String[] columnNames) throws SQLException {
    return deferredIfUnbound(sql, c -> c.prepareStatement(sql, columnNames));
  }

  private interface Preparation {
    PreparedStatement on(Connection connection) throws SQLException;
  }

  private PreparedStatement deferredIfUnbound(String sql, Preparation preparation) throws SQLException {
    if (shardId != null || !source.touchesShardedTable(sql)) {
      return preparation.on(target);
    }
    return (PreparedStatement) Proxy.newProxyInstance(PreparedStatement.class.getClassLoader(),
        new Class<?>[] {PreparedStatement.class}, new Deferred(preparation));
  }

  /**
   * A prepared statement that records the parameters and options Hibernate sets on it, and is
   * prepared on the current connection when any other call needs it — on the bound shard once the
   * key it pins bound the session, else on the first connection, which refuses it.
   */
  private final class Deferred implements InvocationHandler {
    private final Preparation preparation;
    private final List<Object[]> recorded = new ArrayList<>();
    private PreparedStatement prepared;
    private Exception refused;
    private boolean closed;

    Deferred(Preparation preparation) {
      this.preparation = preparation;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      String name = method.getName();
      if (prepared == null) {
        if (name.equals("close")) {
          closed = true;
          return null;
        }
        if (name.equals("isClosed")) {
          return closed;
        }
        if (name.equals("hashCode") && args == null) {
          return System.identityHashCode(proxy);
        }
        if (name.equals("equals") && args != null && args.length == 1) {
          return proxy == args[0];
        }
        if (name.equals("toString") && args == null) {
          return "deferred statement (session not bound to a shard yet)";
        }
        if (name.startsWith("set") || name.equals("clearParameters")) {
          recorded.add(new Object[] {method, args});
          return null;
        }
        if (name.equals("getWarnings") || name.equals("clearWarnings")) {
          return null; // nothing was sent, so the server has said nothing
        }
        if (refused != null) {
          throw new SQLException("This statement was refused before it was sent: " + refused.getMessage(), refused);
        }
        try {
          prepared = preparation.on(target);
        } catch (SQLException | RuntimeException e) {
          refused = e;
          throw e;
        }
        for (Object[] call : recorded) {
          invokeOn(prepared, (Method) call[0], (Object[]) call[1]);
        }
        recorded.clear();
      }
      return invokeOn(prepared, method, args);
    }

    private static Object invokeOn(PreparedStatement statement, Method method, Object[] args) throws Throwable {
      try {
        return method.invoke(statement, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
    }
  }

  // --- session state the binding carries over ---------------------------------------------

  @Override
  public void setReadOnly(boolean readOnly) throws SQLException {
    target.setReadOnly(readOnly);
    readOnlySet = readOnly;
  }

  @Override
  public void setTransactionIsolation(int level) throws SQLException {
    target.setTransactionIsolation(level);
    isolationSet = level;
  }


  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return iface.isInstance(this) ? iface.cast(this) : target.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return iface.isInstance(this) || target.isWrapperFor(iface);
  }
}
