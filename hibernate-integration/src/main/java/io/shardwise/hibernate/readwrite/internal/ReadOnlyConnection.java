package io.shardwise.hibernate.readwrite.internal;

import io.shardwise.hibernate.internal.jdbc.ForwardingConnection;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import io.shardwise.hibernate.readwrite.RowLockInReadOnlySessionException;
import java.sql.Array;
import java.sql.Blob;
import java.sql.CallableStatement;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.NClob;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLClientInfoException;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.SQLXML;
import java.sql.Savepoint;
import java.sql.ShardingKey;
import java.sql.Statement;
import java.sql.Struct;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The connection of a read-only session: every call goes to the pooled connection beneath, except
 * that no row-locking statement leaves the JVM through it, however it was written ({@code find},
 * {@code lock} or {@code refresh} with a lock mode, a query with a lock mode, HQL or native SQL
 * with {@code FOR UPDATE} and its variants). SQL is checked when a statement is prepared, and when
 * a plain {@link Statement} created here executes or batches it — before anything is sent. It also
 * remembers the replica that served it (null for a primary), for the release bookkeeping.
 */
final class ReadOnlyConnection extends ForwardingConnection {
  private final ReplicaNode replica;
  private final String shardId;
  private final Function<String, String> entityOfTable;
  private Consumer<String> extraCheck;
  private final ShardwiseMetrics metrics;

  private ReadOnlyConnection(Connection target, ReplicaNode replica, String shardId,
      Function<String, String> entityOfTable, ShardwiseMetrics metrics) {
    super(target);
    this.metrics = metrics;
    this.replica = replica;
    this.shardId = shardId;
    this.entityOfTable = entityOfTable;
  }

  /**
   * {@code target} guarded for a read-only session on {@code shardId}.
   *
   * @param replica the replica that lent {@code target}, or null when it comes from the primary
   * @param entityOfTable the entity mapped to a table, or null, to name it in the refusal
   */
  static Connection wrap(Connection target, ReplicaNode replica, String shardId,
      Function<String, String> entityOfTable, ShardwiseMetrics metrics) {
    return new ReadOnlyConnection(target, replica, shardId, entityOfTable, metrics);
  }

  /**
   * A connection of {@link #wrap} that, in addition, hands every statement's SQL to
   * {@code sqlCheck} before it is prepared or executed (the check throws to refuse it).
   */
  static Connection alsoChecking(Connection wrapped, Consumer<String> sqlCheck) {
    ((ReadOnlyConnection) wrapped).extraCheck = sqlCheck;
    return wrapped;
  }

  /** The replica that served a connection of {@link #wrap}, or null (a primary, or another connection). */
  static ReplicaNode replicaOf(Connection connection) {
    return connection instanceof ReadOnlyConnection guarded ? guarded.replica : null;
  }

  /** Refuses {@code sql} when it locks rows, naming the entities of the tables it reads. */
  void check(String sql) {
    if (extraCheck != null) {
      extraCheck.accept(sql);
    }
    String clause = RowLocks.lockClause(sql);
    if (clause == null) {
      return;
    }
    List<String> tables = RowLocks.tables(sql);
    String what = tables.isEmpty() ? "rows" : tables.stream()
        .map(t -> {
          String entity = entityOfTable.apply(t);
          return entity == null ? "table " + t : entity + " (table " + t + ")";
        })
        .distinct()
        .reduce((a, b) -> a + ", " + b).orElse("rows");
    metrics.refused(ShardwiseMetrics.Refusal.ROW_LOCK_READ_ONLY);
    throw new RowLockInReadOnlySessionException("[RowLockInReadOnlySession] " + clause + " on " + what
        + " in a read-only session on shard '" + shardId + "'" + (replica != null ? " (served by a replica)" : "")
        + ". A row lock must run on the primary in a read-write session — open it with forKey(key).inTransaction(...)"
        + " instead of readOnly(): a replica cannot lock rows, and a lock on possibly stale data protects nothing."
        + " Nothing was sent.");
  }

  @Override
  public String toString() {
    return "ReadOnlyConnection[shard=" + shardId + (replica != null ? ", replica" : ", primary") + "] " + target;
  }

  // --- statements: checked --------------------------------------------------------------------

  @Override
  public Statement createStatement() throws SQLException {
    return new ReadOnlyStatement(this, target.createStatement());
  }

  @Override
  public Statement createStatement(int resultSetType, int resultSetConcurrency) throws SQLException {
    return new ReadOnlyStatement(this, target.createStatement(resultSetType, resultSetConcurrency));
  }

  @Override
  public Statement createStatement(int resultSetType, int resultSetConcurrency, int resultSetHoldability)
      throws SQLException {
    return new ReadOnlyStatement(this, target.createStatement(resultSetType, resultSetConcurrency,
        resultSetHoldability));
  }

  @Override
  public PreparedStatement prepareStatement(String sql) throws SQLException {
    check(sql);
    return target.prepareStatement(sql);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency)
      throws SQLException {
    check(sql);
    return target.prepareStatement(sql, resultSetType, resultSetConcurrency);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency,
      int resultSetHoldability) throws SQLException {
    check(sql);
    return target.prepareStatement(sql, resultSetType, resultSetConcurrency, resultSetHoldability);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int autoGeneratedKeys) throws SQLException {
    check(sql);
    return target.prepareStatement(sql, autoGeneratedKeys);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int[] columnIndexes) throws SQLException {
    check(sql);
    return target.prepareStatement(sql, columnIndexes);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, String[] columnNames) throws SQLException {
    check(sql);
    return target.prepareStatement(sql, columnNames);
  }

  @Override
  public CallableStatement prepareCall(String sql) throws SQLException {
    check(sql);
    return target.prepareCall(sql);
  }

  @Override
  public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency) throws SQLException {
    check(sql);
    return target.prepareCall(sql, resultSetType, resultSetConcurrency);
  }

  @Override
  public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency,
      int resultSetHoldability) throws SQLException {
    check(sql);
    return target.prepareCall(sql, resultSetType, resultSetConcurrency, resultSetHoldability);
  }

  @Override
  public String nativeSQL(String sql) throws SQLException {
    check(sql);
    return target.nativeSQL(sql);
  }

  // --- wrapper ------------------------------------------------------------------------------

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    if (iface == Connection.class) {
      return iface.cast(this);
    }
    return target.unwrap(iface);
  }

  /**
   * A plain statement of a {@link ReadOnlyConnection}: SQL it executes or batches is checked first;
   * it answers {@link #getConnection()} with the guarded connection; everything else is delegated.
   */
  static final class ReadOnlyStatement implements Statement {
    private final ReadOnlyConnection connection;
    private final Statement target;

    ReadOnlyStatement(ReadOnlyConnection connection, Statement target) {
      this.connection = connection;
      this.target = target;
    }

    // --- checked ------------------------------------------------------------------------------

    @Override
    public ResultSet executeQuery(String sql) throws SQLException {
      connection.check(sql);
      return target.executeQuery(sql);
    }

    @Override
    public int executeUpdate(String sql) throws SQLException {
      connection.check(sql);
      return target.executeUpdate(sql);
    }

    @Override
    public int executeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
      connection.check(sql);
      return target.executeUpdate(sql, autoGeneratedKeys);
    }

    @Override
    public int executeUpdate(String sql, int[] columnIndexes) throws SQLException {
      connection.check(sql);
      return target.executeUpdate(sql, columnIndexes);
    }

    @Override
    public int executeUpdate(String sql, String[] columnNames) throws SQLException {
      connection.check(sql);
      return target.executeUpdate(sql, columnNames);
    }

    @Override
    public boolean execute(String sql) throws SQLException {
      connection.check(sql);
      return target.execute(sql);
    }

    @Override
    public boolean execute(String sql, int autoGeneratedKeys) throws SQLException {
      connection.check(sql);
      return target.execute(sql, autoGeneratedKeys);
    }

    @Override
    public boolean execute(String sql, int[] columnIndexes) throws SQLException {
      connection.check(sql);
      return target.execute(sql, columnIndexes);
    }

    @Override
    public boolean execute(String sql, String[] columnNames) throws SQLException {
      connection.check(sql);
      return target.execute(sql, columnNames);
    }

    @Override
    public long executeLargeUpdate(String sql) throws SQLException {
      connection.check(sql);
      return target.executeLargeUpdate(sql);
    }

    @Override
    public long executeLargeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
      connection.check(sql);
      return target.executeLargeUpdate(sql, autoGeneratedKeys);
    }

    @Override
    public long executeLargeUpdate(String sql, int[] columnIndexes) throws SQLException {
      connection.check(sql);
      return target.executeLargeUpdate(sql, columnIndexes);
    }

    @Override
    public long executeLargeUpdate(String sql, String[] columnNames) throws SQLException {
      connection.check(sql);
      return target.executeLargeUpdate(sql, columnNames);
    }

    @Override
    public void addBatch(String sql) throws SQLException {
      connection.check(sql);
      target.addBatch(sql);
    }

    @Override
    public Connection getConnection() {
      return connection;
    }

    // --- delegated ----------------------------------------------------------------------------

    @Override
    public int[] executeBatch() throws SQLException {
      return target.executeBatch();
    }

    @Override
    public long[] executeLargeBatch() throws SQLException {
      return target.executeLargeBatch();
    }

    @Override
    public void clearBatch() throws SQLException {
      target.clearBatch();
    }

    @Override
    public void close() throws SQLException {
      target.close();
    }

    @Override
    public int getMaxFieldSize() throws SQLException {
      return target.getMaxFieldSize();
    }

    @Override
    public void setMaxFieldSize(int max) throws SQLException {
      target.setMaxFieldSize(max);
    }

    @Override
    public int getMaxRows() throws SQLException {
      return target.getMaxRows();
    }

    @Override
    public void setMaxRows(int max) throws SQLException {
      target.setMaxRows(max);
    }

    @Override
    public long getLargeMaxRows() throws SQLException {
      return target.getLargeMaxRows();
    }

    @Override
    public void setLargeMaxRows(long max) throws SQLException {
      target.setLargeMaxRows(max);
    }

    @Override
    public void setEscapeProcessing(boolean enable) throws SQLException {
      target.setEscapeProcessing(enable);
    }

    @Override
    public int getQueryTimeout() throws SQLException {
      return target.getQueryTimeout();
    }

    @Override
    public void setQueryTimeout(int seconds) throws SQLException {
      target.setQueryTimeout(seconds);
    }

    @Override
    public void cancel() throws SQLException {
      target.cancel();
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
      return target.getWarnings();
    }

    @Override
    public void clearWarnings() throws SQLException {
      target.clearWarnings();
    }

    @Override
    public void setCursorName(String name) throws SQLException {
      target.setCursorName(name);
    }

    @Override
    public ResultSet getResultSet() throws SQLException {
      return target.getResultSet();
    }

    @Override
    public int getUpdateCount() throws SQLException {
      return target.getUpdateCount();
    }

    @Override
    public long getLargeUpdateCount() throws SQLException {
      return target.getLargeUpdateCount();
    }

    @Override
    public boolean getMoreResults() throws SQLException {
      return target.getMoreResults();
    }

    @Override
    public boolean getMoreResults(int current) throws SQLException {
      return target.getMoreResults(current);
    }

    @Override
    public void setFetchDirection(int direction) throws SQLException {
      target.setFetchDirection(direction);
    }

    @Override
    public int getFetchDirection() throws SQLException {
      return target.getFetchDirection();
    }

    @Override
    public void setFetchSize(int rows) throws SQLException {
      target.setFetchSize(rows);
    }

    @Override
    public int getFetchSize() throws SQLException {
      return target.getFetchSize();
    }

    @Override
    public int getResultSetConcurrency() throws SQLException {
      return target.getResultSetConcurrency();
    }

    @Override
    public int getResultSetType() throws SQLException {
      return target.getResultSetType();
    }

    @Override
    public ResultSet getGeneratedKeys() throws SQLException {
      return target.getGeneratedKeys();
    }

    @Override
    public int getResultSetHoldability() throws SQLException {
      return target.getResultSetHoldability();
    }

    @Override
    public boolean isClosed() throws SQLException {
      return target.isClosed();
    }

    @Override
    public void setPoolable(boolean poolable) throws SQLException {
      target.setPoolable(poolable);
    }

    @Override
    public boolean isPoolable() throws SQLException {
      return target.isPoolable();
    }

    @Override
    public void closeOnCompletion() throws SQLException {
      target.closeOnCompletion();
    }

    @Override
    public boolean isCloseOnCompletion() throws SQLException {
      return target.isCloseOnCompletion();
    }

    @Override
    public String enquoteLiteral(String val) throws SQLException {
      return target.enquoteLiteral(val);
    }

    @Override
    public String enquoteIdentifier(String identifier, boolean alwaysQuote) throws SQLException {
      return target.enquoteIdentifier(identifier, alwaysQuote);
    }

    @Override
    public boolean isSimpleIdentifier(String identifier) throws SQLException {
      return target.isSimpleIdentifier(identifier);
    }

    @Override
    public String enquoteNCharLiteral(String val) throws SQLException {
      return target.enquoteNCharLiteral(val);
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      return target.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
      return target.isWrapperFor(iface);
    }
  }
}
