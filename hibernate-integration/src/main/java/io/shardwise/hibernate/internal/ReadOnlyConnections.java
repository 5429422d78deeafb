package io.shardwise.hibernate.internal;

import io.shardwise.hibernate.RowLockInReadOnlySessionException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.function.Function;

/**
 * Wraps the connections of read-only sessions so that no row-locking statement leaves the JVM
 * through them, however it was written: {@code find}/{@code lock}/{@code refresh} with a lock mode,
 * a query with a lock mode, HQL or native SQL with {@code FOR UPDATE} and its variants. The check
 * runs when a statement is prepared or executed, before anything is sent.
 */
final class ReadOnlyConnections {
  /** Implemented by wrapped connections, so that release can find the replica that served them. */
  interface Routed {
    ReplicaNode shardwiseReplica();
  }

  private ReadOnlyConnections() {}

  static Connection wrap(Connection target, ReplicaNode replica, String shardId, Function<String, String> entityOfTable) {
    Guard guard = new Guard(target, replica, shardId, entityOfTable);
    return (Connection) Proxy.newProxyInstance(ReadOnlyConnections.class.getClassLoader(),
        new Class<?>[] {Connection.class, Routed.class}, guard);
  }

  /**
   * A connection of {@link #wrap} that, in addition, hands every statement's SQL to
   * {@code sqlCheck} before it is prepared or executed (the check throws to refuse it).
   */
  static Connection refusingShardedTables(Connection wrapped, java.util.function.Consumer<String> sqlCheck) {
    Guard guard = (Guard) Proxy.getInvocationHandler(wrapped);
    guard.extraCheck = sqlCheck;
    return wrapped;
  }

  static ReplicaNode replicaOf(Connection connection) {
    return connection instanceof Routed routed ? routed.shardwiseReplica() : null;
  }

  private static final class Guard implements InvocationHandler {
    final Connection target;
    final ReplicaNode replica;
    final String shardId;
    final Function<String, String> entityOfTable;
    java.util.function.Consumer<String> extraCheck;

    Guard(Connection target, ReplicaNode replica, String shardId, Function<String, String> entityOfTable) {
      this.target = target;
      this.replica = replica;
      this.shardId = shardId;
      this.entityOfTable = entityOfTable;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      String name = method.getName();
      if (name.equals("shardwiseReplica")) {
        return replica;
      }
      if ((name.equals("prepareStatement") || name.equals("prepareCall") || name.equals("nativeSQL"))
          && args != null && args[0] instanceof String sql) {
        check(sql);
      }
      if (name.equals("unwrap") && args[0] == Connection.class) {
        return proxy;
      }
      Object result;
      try {
        result = method.invoke(target, args);
      } catch (InvocationTargetException e) {
        throw e.getCause();
      }
      if (name.equals("createStatement") && result instanceof Statement statement
          && !(result instanceof PreparedStatement)) {
        return Proxy.newProxyInstance(ReadOnlyConnections.class.getClassLoader(), new Class<?>[] {Statement.class},
            (p, m, a) -> {
              if ((m.getName().startsWith("execute") || m.getName().equals("addBatch")) && a != null
                  && a.length > 0 && a[0] instanceof String sql) {
                check(sql);
              }
              if (m.getName().equals("getConnection")) {
                return proxy;
              }
              try {
                return m.invoke(statement, a);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
      }
      return result;
    }

    private void check(String sql) {
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
      throw new RowLockInReadOnlySessionException("[RowLockInReadOnlySession] " + clause + " on " + what
          + " in a read-only session on shard '" + shardId + "'" + (replica != null ? " (served by a replica)" : "")
          + ". A row lock must run on the primary in a read-write session — open it with forKey(key).inTransaction(...)"
          + " instead of readOnly(): a replica cannot lock rows, and a lock on possibly stale data protects nothing."
          + " Nothing was sent.");
    }
  }
}
