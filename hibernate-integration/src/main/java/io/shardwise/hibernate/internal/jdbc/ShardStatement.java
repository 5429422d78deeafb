package io.shardwise.hibernate.internal.jdbc;

import io.shardwise.hibernate.internal.jdbc.StatementTimer.Operation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;

/**
 * A statement of a {@link ShardConnection}: running it first requires the connection to be alive,
 * and a lost connection while it runs becomes the connection's {@code ShardUnavailableException}.
 * Setters and getters that stay in the driver delegate plainly. A result set that fetches rows in
 * batches while it is read (a fetch size above zero) is wrapped the same way, since its reads talk
 * to the server; a fully fetched one is handed out as the driver's.
 */
class ShardStatement<S extends Statement> implements Statement {
  final ShardConnection connection;
  final S target;

  ShardStatement(ShardConnection connection, S target) {
    this.connection = connection;
    this.target = target;
  }

  /**
   * Callable statements are rare (stored procedures): a reflective wrapper serves them. Their
   * executions are guarded, timed and counted as a transaction's statements like every other's.
   */
  static CallableStatement callable(ShardConnection connection, CallableStatement target) {
    return (CallableStatement) Proxy.newProxyInstance(ShardStatement.class.getClassLoader(),
        new Class<?>[] {CallableStatement.class}, (proxy, method, args) -> {
          String name = method.getName();
          if (name.equals("getConnection") && method.getParameterCount() == 0) {
            return connection;
          }
          Operation operation = name.startsWith("execute") ? operationOf(name) : null;
          if (operation == null) {
            return invoke(connection, target, method, args, "reading results");
          }
          connection.requireAlive("run a statement");
          long started = connection.statementStarted();
          boolean failed = true;
          try {
            Object result = invoke(connection, target, method, args, "running a statement");
            failed = false;
            return operation == Operation.QUERY ? new ShardStatement<>(connection, target).results((ResultSet) result)
                : result;
          } finally {
            connection.statementEnded(operation, started, failed);
          }
        });
  }

  private static Operation operationOf(String executeMethod) {
    return switch (executeMethod) {
      case "executeQuery" -> Operation.QUERY;
      case "executeUpdate", "executeLargeUpdate" -> Operation.UPDATE;
      case "executeBatch", "executeLargeBatch" -> Operation.BATCH;
      case "execute" -> Operation.EXECUTE;
      default -> null;
    };
  }

  private static Object invoke(ShardConnection connection, Object target, java.lang.reflect.Method method,
      Object[] args, String doing) throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof SQLException sql) {
        throw connection.translate(sql, doing);
      }
      throw e.getCause();
    }
  }

  ResultSet results(ResultSet results) throws SQLException {
    if (results == null || target.getFetchSize() <= 0) {
      return results;
    }
    return (ResultSet) guarded(connection, results, ResultSet.class);
  }

  private static Object guarded(ShardConnection connection, Object target, Class<?> type) {
    return Proxy.newProxyInstance(ShardStatement.class.getClassLoader(), new Class<?>[] {type},
        (proxy, method, args) -> method.getName().equals("getConnection") && method.getParameterCount() == 0
            ? connection : invoke(connection, target, method, args, "reading results"));
  }

  @Override
  public Connection getConnection() {
    return connection;
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    if (type.isInstance(this)) {
      return type.cast(this);
    }
    return target.unwrap(type);
  }

  @Override
  public boolean isWrapperFor(Class<?> type) throws SQLException {
    return type.isInstance(this) || target.isWrapperFor(type);
  }

  @Override
  public ResultSet executeQuery(String sql) throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      ResultSet result = results(target.executeQuery(sql));
      connection.statementEnded(Operation.QUERY, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.QUERY, started, true);
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public int executeUpdate(String sql) throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      int result = target.executeUpdate(sql);
      connection.statementEnded(Operation.UPDATE, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.UPDATE, started, true);
      throw connection.translate(e, "running a statement");
    }
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
  public boolean execute(String sql) throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      boolean result = target.execute(sql);
      connection.statementEnded(Operation.EXECUTE, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.EXECUTE, started, true);
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public ResultSet getResultSet() throws SQLException {
    connection.requireAlive("run a statement");
    try {
      return results(target.getResultSet());
    } catch (SQLException e) {
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public int getUpdateCount() throws SQLException {
    return target.getUpdateCount();
  }

  @Override
  public boolean getMoreResults() throws SQLException {
    connection.requireAlive("run a statement");
    try {
      return target.getMoreResults();
    } catch (SQLException e) {
      throw connection.translate(e, "running a statement");
    }
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
  public void addBatch(String sql) throws SQLException {
    target.addBatch(sql);
  }

  @Override
  public void clearBatch() throws SQLException {
    target.clearBatch();
  }

  @Override
  public int[] executeBatch() throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      int[] result = target.executeBatch();
      connection.statementEnded(Operation.BATCH, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.BATCH, started, true);
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public boolean getMoreResults(int current) throws SQLException {
    connection.requireAlive("run a statement");
    try {
      return target.getMoreResults(current);
    } catch (SQLException e) {
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public ResultSet getGeneratedKeys() throws SQLException {
    connection.requireAlive("run a statement");
    try {
      return results(target.getGeneratedKeys());
    } catch (SQLException e) {
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public int executeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      int result = target.executeUpdate(sql, autoGeneratedKeys);
      connection.statementEnded(Operation.UPDATE, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.UPDATE, started, true);
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public int executeUpdate(String sql, int[] columnIndexes) throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      int result = target.executeUpdate(sql, columnIndexes);
      connection.statementEnded(Operation.UPDATE, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.UPDATE, started, true);
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public int executeUpdate(String sql, String[] columnNames) throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      int result = target.executeUpdate(sql, columnNames);
      connection.statementEnded(Operation.UPDATE, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.UPDATE, started, true);
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public boolean execute(String sql, int autoGeneratedKeys) throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      boolean result = target.execute(sql, autoGeneratedKeys);
      connection.statementEnded(Operation.EXECUTE, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.EXECUTE, started, true);
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public boolean execute(String sql, int[] columnIndexes) throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      boolean result = target.execute(sql, columnIndexes);
      connection.statementEnded(Operation.EXECUTE, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.EXECUTE, started, true);
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public boolean execute(String sql, String[] columnNames) throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      boolean result = target.execute(sql, columnNames);
      connection.statementEnded(Operation.EXECUTE, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.EXECUTE, started, true);
      throw connection.translate(e, "running a statement");
    }
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
  public long getLargeUpdateCount() throws SQLException {
    return target.getLargeUpdateCount();
  }

  @Override
  public void setLargeMaxRows(long max) throws SQLException {
    target.setLargeMaxRows(max);
  }

  @Override
  public long getLargeMaxRows() throws SQLException {
    return target.getLargeMaxRows();
  }

  @Override
  public long[] executeLargeBatch() throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      long[] result = target.executeLargeBatch();
      connection.statementEnded(Operation.BATCH, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.BATCH, started, true);
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public long executeLargeUpdate(String sql) throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      long result = target.executeLargeUpdate(sql);
      connection.statementEnded(Operation.UPDATE, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.UPDATE, started, true);
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public long executeLargeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      long result = target.executeLargeUpdate(sql, autoGeneratedKeys);
      connection.statementEnded(Operation.UPDATE, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.UPDATE, started, true);
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public long executeLargeUpdate(String sql, int[] columnIndexes) throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      long result = target.executeLargeUpdate(sql, columnIndexes);
      connection.statementEnded(Operation.UPDATE, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.UPDATE, started, true);
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public long executeLargeUpdate(String sql, String[] columnNames) throws SQLException {
    connection.requireAlive("run a statement");
    long started = connection.statementStarted();
    try {
      long result = target.executeLargeUpdate(sql, columnNames);
      connection.statementEnded(Operation.UPDATE, started, false);
      return result;
    } catch (SQLException e) {
      connection.statementEnded(Operation.UPDATE, started, true);
      throw connection.translate(e, "running a statement");
    }
  }

  @Override
  public String enquoteLiteral(String value) throws SQLException {
    return target.enquoteLiteral(value);
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
  public String enquoteNCharLiteral(String value) throws SQLException {
    return target.enquoteNCharLiteral(value);
  }
}
