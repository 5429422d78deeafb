package io.shardwise.hibernate.scatter.internal;

import io.shardwise.hibernate.internal.query.QueryGuard;
import io.shardwise.hibernate.scatter.ScatterGatherException;
import io.shardwise.hibernate.scatter.ScatterQuery;
import io.shardwise.hibernate.scatter.ScatterResult;
import io.shardwise.hibernate.scatter.ShardFailurePolicy;
import io.shardwise.hibernate.scatter.UnsupportedScatterQueryException;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.SortKey;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import jakarta.persistence.NoResultException;
import jakarta.persistence.NonUniqueResultException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.query.SelectionQuery;

/** {@link ScatterQuery} planned from Hibernate's model of the query and fanned out on the {@link ScatterExecutor}. */
public final class ParallelScatterQuery<T> implements ScatterQuery<T> {
  private static final String AFTER_PARAMETER = "shardwise_after_";

  private final ScatterContext context;
  private final String hql;
  private final Class<T> resultType;
  private final Map<String, Object> named = new LinkedHashMap<>();
  private final Map<Integer, Object> positional = new LinkedHashMap<>();
  private int firstResult = -1;
  private int maxResults = -1;
  private Duration deadline = DEFAULT_DEADLINE;
  private ShardFailurePolicy policy = ShardFailurePolicy.FAIL;
  private Object[] after;

  ParallelScatterQuery(ScatterContext context, String hql, Class<T> resultType) {
    this.context = context;
    this.hql = hql;
    this.resultType = resultType;
  }

  @Override
  public ScatterQuery<T> setParameter(String name, Object value) {
    named.put(name, value);
    return this;
  }

  @Override
  public ScatterQuery<T> setParameter(int position, Object value) {
    positional.put(position, value);
    return this;
  }

  @Override
  public ScatterQuery<T> setFirstResult(int firstResult) {
    if (firstResult < 0) {
      throw new IllegalArgumentException("setFirstResult(" + firstResult + "): must be 0 or more");
    }
    this.firstResult = firstResult;
    return this;
  }

  @Override
  public ScatterQuery<T> setMaxResults(int maxResults) {
    if (maxResults < 0) {
      throw new IllegalArgumentException("setMaxResults(" + maxResults + "): must be 0 or more");
    }
    this.maxResults = maxResults;
    return this;
  }

  @Override
  public ScatterQuery<T> deadline(Duration deadline) {
    if (deadline == null || deadline.isNegative() || deadline.isZero()) {
      throw new IllegalArgumentException("deadline(" + deadline + "): must be positive");
    }
    this.deadline = deadline;
    return this;
  }

  @Override
  public ScatterQuery<T> onShardFailure(ShardFailurePolicy policy) {
    this.policy = java.util.Objects.requireNonNull(policy, "policy");
    return this;
  }

  @Override
  public ScatterQuery<T> after(Object... lastSortKey) {
    if (lastSortKey == null || lastSortKey.length == 0) {
      throw new IllegalArgumentException("after(...) needs the ORDER BY values of the last row seen");
    }
    for (int i = 0; i < lastSortKey.length; i++) {
      if (lastSortKey[i] == null) {
        throw new IllegalArgumentException("after(...): value " + (i + 1) + " is null; keyset pagination needs"
            + " non-null sort keys");
      }
    }
    this.after = lastSortKey.clone();
    return this;
  }

  @Override
  public List<T> getResultList() {
    return getResult().rows();
  }

  @Override
  public T getSingleResult() {
    List<T> rows = getResultList();
    if (rows.isEmpty()) {
      throw new NoResultException("Scatter query [" + hql + "] returned no row; getSingleResultOrNull() answers null"
          + " instead");
    }
    return single(rows);
  }

  @Override
  public T getSingleResultOrNull() {
    List<T> rows = getResultList();
    return rows.isEmpty() ? null : single(rows);
  }

  private T single(List<T> rows) {
    if (rows.size() > 1) {
      throw new NonUniqueResultException("Scatter query [" + hql + "] returned " + rows.size() + " rows where one"
          + " was expected; use getResultList(), or narrow the query");
    }
    return rows.get(0);
  }

  @Override
  public ScatterResult<T> getResult() {
    long started = System.nanoTime();
    long deadlineNanos = started + deadline.toNanos();
    ScatterPlan plan = ScatterPlanner.plan(context.sessionFactory().unwrap(SessionFactoryImplementor.class), hql,
        context.placement());
    boolean single = plan.selectionCount() == 1 && resultType != Object[].class;
    if (!single && resultType != Object[].class && resultType != Object.class) {
      throw new IllegalArgumentException("[" + hql + "] selects " + plan.selectionCount() + " values: ask for"
          + " Object[].class, not " + resultType.getName());
    }
    long offset = firstResult >= 0 ? firstResult : plan.offset();
    long limit = maxResults >= 0 ? maxResults : plan.limit();

    Map<String, Object> keysetParameters = new LinkedHashMap<>();
    String keyset = after == null ? null : keysetPredicate(plan, keysetParameters);
    int perShardMax = plan.pushesDownLimit() && limit >= 0 ? Math.toIntExact(offset + limit) : -1;
    String shardHql = plan.shardHql(keyset);

    Map<String, Callable<List<Object[]>>> tasks = new LinkedHashMap<>();
    for (String shardId : context.shardIds().get()) {
      tasks.put(shardId, () -> runOnShard(shardId, shardHql, keysetParameters, perShardMax, deadlineNanos));
      if (plan.oneShard()) {
        break; // reference tables only: every shard holds the same rows
      }
    }
    ScatterExecutor.Outcome<List<Object[]>> outcome =
        context.executor().get().run(tasks, deadlineNanos, policy == ShardFailurePolicy.FAIL);
    if (!outcome.missing().isEmpty() && policy == ShardFailurePolicy.FAIL) {
      Throwable cause = outcome.errors().values().stream().findFirst().orElse(null);
      throw new ScatterGatherException("Scatter query [" + hql + "] lost " + outcome.missing().size() + " of "
          + tasks.size() + " shards under policy FAIL: " + outcome.missing().entrySet().stream()
              .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining("; "))
          + ". Bring the shard back, raise the deadline (" + deadline.toMillis() + " ms), or accept a partial"
          + " result with onShardFailure(PARTIAL)", outcome.missing(), cause);
    }
    List<List<Object[]>> perShard = new ArrayList<>();
    Map<String, Integer> shardRows = new LinkedHashMap<>();
    for (String shardId : tasks.keySet()) {
      List<Object[]> rows = outcome.results().get(shardId);
      if (rows != null) {
        perShard.add(rows);
        shardRows.put(shardId, rows.size());
      }
    }
    List<Object[]> merged = ScatterMerge.merge(plan, perShard, offset, limit, named, positional);
    List<T> rows = new ArrayList<>(merged.size());
    for (Object[] row : merged) {
      rows.add(resultType.cast(single ? row[0] : Arrays.copyOf(row, plan.selectionCount())));
    }
    Object[] last = null;
    if (!plan.sortKeys().isEmpty() && !merged.isEmpty()) {
      Object[] lastRow = merged.get(merged.size() - 1);
      last = plan.sortKeys().stream().map(k -> lastRow[k.slot()]).toArray();
    }
    return new ScatterResult<>(List.copyOf(rows), Map.copyOf(outcome.missing()), Map.copyOf(outcome.times()), Map.copyOf(shardRows),
        Duration.ofNanos(System.nanoTime() - started), last);
  }

  private List<Object[]> runOnShard(String shardId, String shardHql, Map<String, Object> keysetParameters,
      int perShardMax, long deadlineNanos) {
    return context.reader().read(shardId, session -> {
      long leftMs = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
      if (leftMs <= 0) {
        throw new ScatterGatherException("Shard '" + shardId + "' got its turn after the deadline", Map.of(), null);
      }
      // the server cancels the statement at the deadline: a late shard stops working, not just being waited for
      session.doWork(c -> {
        try (Statement s = c.createStatement()) {
          s.execute("SET LOCAL statement_timeout = " + leftMs);
        }
      });
      return QueryGuard.bypass(() -> {
        SelectionQuery<Object[]> query = session.createSelectionQuery(QueryGuard.scatterGather(shardHql), Object[].class);
        // a parameter of the HAVING alone is not in the shard query: the merge evaluates HAVING
        Set<String> names = query.getParameterMetadata().getNamedParameterNames();
        Set<Integer> positions = query.getParameterMetadata().getParameters().stream()
            .map(org.hibernate.query.QueryParameter::getPosition).filter(java.util.Objects::nonNull)
            .collect(Collectors.toSet());
        named.forEach((name, value) -> {
          if (names.contains(name)) {
            query.setParameter(name, value);
          }
        });
        positional.forEach((position, value) -> {
          if (positions.contains(position)) {
            query.setParameter(position, value);
          }
        });
        keysetParameters.forEach(query::setParameter);
        if (perShardMax >= 0) {
          query.setMaxResults(perShardMax);
        }
        return query.getResultList();
      });
    });
  }

  /**
   * Rows after the given key in the ORDER BY: for keys k1..kn, the OR over i of
   * (k1 = v1 and ... and k(i-1) = v(i-1) and ki &gt; vi), with &lt; for descending keys.
   */
  private String keysetPredicate(ScatterPlan plan, Map<String, Object> parameters) {
    List<SortKey> keys = plan.sortKeys();
    if (!plan.pushesDownLimit() || keys.isEmpty()) {
      throw new UnsupportedScatterQueryException("after(...) needs a query with an ORDER BY that is neither grouped"
          + " nor aggregated; [" + hql + "] is not one. Instead: add ORDER BY ..., id and drop the grouping");
    }
    if (after.length != keys.size()) {
      throw new IllegalArgumentException("after(...) got " + after.length + " values, but [" + hql + "] orders by "
          + keys.size() + " (" + String.join(", ", plan.sortKeyHql()) + ")");
    }
    for (int i = 0; i < after.length; i++) {
      parameters.put(AFTER_PARAMETER + i, after[i]);
    }
    List<String> alternatives = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      StringBuilder alt = new StringBuilder("(");
      for (int j = 0; j < i; j++) {
        alt.append(plan.sortKeyHql().get(j)).append(" = :").append(AFTER_PARAMETER).append(j).append(" and ");
      }
      alt.append(plan.sortKeyHql().get(i)).append(keys.get(i).descending() ? " < :" : " > :")
          .append(AFTER_PARAMETER).append(i).append(')');
      alternatives.add(alt.toString());
    }
    return String.join(" or ", alternatives);
  }

  @Override
  public String toString() {
    return "ScatterQuery[" + hql + "]";
  }
}
