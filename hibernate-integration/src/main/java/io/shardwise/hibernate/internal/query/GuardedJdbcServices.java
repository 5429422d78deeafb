package io.shardwise.hibernate.internal.query;

import java.sql.PreparedStatement;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.hibernate.engine.jdbc.internal.JdbcServicesImpl;
import org.hibernate.sql.exec.internal.JdbcOperationQueryMutationNative;
import org.hibernate.sql.exec.internal.StandardJdbcMutationExecutor;
import org.hibernate.sql.exec.spi.ExecutionContext;
import org.hibernate.sql.exec.spi.JdbcMutationExecutor;
import org.hibernate.sql.exec.spi.JdbcOperationQueryMutation;
import org.hibernate.sql.exec.spi.JdbcParameterBindings;

/**
 * Hibernate's JDBC services with the shard-key value check in front of native UPDATE, DELETE and
 * INSERT, put in the service registry of every persistence unit whose connections come from
 * Shardwise (see {@code io.shardwise.hibernate.spi.QueryGuardContributor}).
 *
 * <p>Hibernate runs a native statement that writes without asking the native query interpreter
 * for a plan (which is where {@link GuardedNativeQueryInterpreter} checks a native select's key
 * values); every such statement reaches the mutation executor, with its SQL as sent and the value
 * bound to each placeholder, before a statement is prepared. There the values the statement pins
 * or writes its key columns to are held to the session's shard, and a session of no shard binds to
 * theirs. Any other mutation (HQL, entity writes) passes through untouched: those are checked where
 * Hibernate translates them.
 */
public final class GuardedJdbcServices extends JdbcServicesImpl {

  private final GuardedMutationExecutor executor = new GuardedMutationExecutor();

  void arm(QueryGuard guard) {
    executor.guard = guard;
  }

  @Override
  public JdbcMutationExecutor getJdbcMutationExecutor() {
    return executor;
  }

  private static final class GuardedMutationExecutor implements JdbcMutationExecutor {
    private volatile QueryGuard guard;

    @Override
    public int execute(JdbcOperationQueryMutation mutation, JdbcParameterBindings bindings,
        Function<String, PreparedStatement> statementCreator, BiConsumer<Integer, PreparedStatement> expectationCheck,
        ExecutionContext context) {
      QueryGuard current = guard;
      if (current != null && mutation instanceof JdbcOperationQueryMutationNative) {
        current.checkNativeMutationValues(mutation.getSqlString(), mutation.getParameterBinders(), bindings,
            context.getSession());
      }
      return StandardJdbcMutationExecutor.INSTANCE.execute(mutation, bindings, statementCreator, expectationCheck,
          context);
    }
  }
}
