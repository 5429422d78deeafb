package io.shardwise.hibernate.internal.query;

import java.util.List;
import org.hibernate.ScrollMode;
import org.hibernate.engine.query.internal.NativeQueryInterpreterStandardImpl;
import org.hibernate.engine.query.spi.NativeQueryInterpreter;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.query.spi.DomainQueryExecutionContext;
import org.hibernate.query.spi.ScrollableResultsImplementor;
import org.hibernate.query.sql.spi.NativeSelectQueryDefinition;
import org.hibernate.query.sql.spi.NativeSelectQueryPlan;
import org.hibernate.query.sql.spi.ParameterOccurrence;
import org.hibernate.query.sql.spi.ParameterRecognizer;
import org.hibernate.sql.results.spi.ResultsConsumer;
import io.shardwise.queryrules.NativeSqlRule;

/**
 * Hibernate's native query interpreter with the shard-key guard in front, put in the service
 * registry of every persistence unit whose connections come from Shardwise (see
 * {@code io.shardwise.hibernate.spi.QueryGuardContributor}).
 *
 * <p>Hibernate asks it to recognize the parameters of every native statement once per distinct
 * SQL string, when a native query is created: there the statement is held to the
 * {@link NativeSqlRule} and refused before any SQL when a sharded table's key column is not pinned.
 * Hibernate asks it for the plan of a native select; the plan it returns checks, at every
 * execution, that each value the statement pins a key column to belongs to the session's shard.
 */
public final class GuardedNativeQueryInterpreter implements NativeQueryInterpreter {

  private final NativeQueryInterpreter delegate;
  private volatile QueryGuard guard;

  public GuardedNativeQueryInterpreter(boolean nativeJdbcParametersIgnored) {
    this.delegate = new NativeQueryInterpreterStandardImpl(nativeJdbcParametersIgnored);
  }

  void arm(QueryGuard guard) {
    this.guard = guard;
  }

  @Override
  public void recognizeParameters(String nativeQuery, ParameterRecognizer recognizer) {
    QueryGuard current = guard;
    if (current != null) {
      current.checkNative(nativeQuery);
    }
    delegate.recognizeParameters(nativeQuery, recognizer);
  }

  @Override
  public <R> NativeSelectQueryPlan<R> createQueryPlan(NativeSelectQueryDefinition<R> definition,
      SessionFactoryImplementor sessionFactory) {
    NativeSelectQueryPlan<R> plan = delegate.createQueryPlan(definition, sessionFactory);
    QueryGuard current = guard;
    if (current == null) {
      return plan;
    }
    List<NativeSqlRule.KeyPin> pins = current.nativeVerdict(definition.getSqlString()).pins();
    return pins.isEmpty() ? plan : new CheckedPlan<>(plan, pins, definition.getQueryParameterOccurrences(), current);
  }

  /**
   * A native select's plan that checks its key values against the session's shard before it runs.
   * Its SQL has Hibernate's JDBC placeholders where the query had parameters, so a pin on the
   * placeholder at position n is the parameter of the n-th occurrence.
   */
  private record CheckedPlan<R>(NativeSelectQueryPlan<R> plan, List<NativeSqlRule.KeyPin> pins,
      List<ParameterOccurrence> occurrences, QueryGuard guard) implements NativeSelectQueryPlan<R> {

    @Override
    public <T> T executeQuery(DomainQueryExecutionContext context, ResultsConsumer<T, R> consumer) {
      check(context);
      return plan.executeQuery(context, consumer);
    }

    @Override
    public List<R> performList(DomainQueryExecutionContext context) {
      check(context);
      return plan.performList(context);
    }

    @Override
    public ScrollableResultsImplementor<R> performScroll(ScrollMode mode, DomainQueryExecutionContext context) {
      check(context);
      return plan.performScroll(mode, context);
    }

    private void check(DomainQueryExecutionContext context) {
      guard.checkNativeValues(pins, occurrences, context.getQueryParameterBindings(), context.getSession());
    }
  }
}
