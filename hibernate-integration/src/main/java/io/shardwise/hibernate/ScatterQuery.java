package io.shardwise.hibernate;

import io.shardwise.hibernate.internal.query.QueryGuard;

import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.ShardwiseRuntime;
import io.shardwise.hibernate.internal.scatter.ScatterExecutor;
import io.shardwise.hibernate.internal.scatter.ScatterMerge;
import io.shardwise.hibernate.internal.scatter.ScatterPlan;
import io.shardwise.hibernate.internal.scatter.ScatterPlan.SortKey;
import io.shardwise.hibernate.internal.scatter.ScatterPlanner;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.hibernate.ScrollMode;
import org.hibernate.ScrollableResults;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.query.SelectionQuery;

/**
 * One HQL query run on every shard in parallel, its per-shard results merged as the query says.
 *
 * <p>The merge is derived from Hibernate's semantic model of the query:
 * <ul>
 *   <li>ORDER BY: each shard sorts, the lists are merged k-way;</li>
 *   <li>LIMIT / OFFSET ({@link #setMaxResults}, {@link #setFirstResult}, or in the HQL): each
 *       shard returns at most offset + limit rows, the merge skips and cuts. Deep pages cost every
 *       shard offset + limit rows: prefer {@link #after keyset pagination};</li>
 *   <li>count, sum, min, max: combined; avg: each shard returns sum and count, the merge divides;</li>
 *   <li>GROUP BY: partial groups re-aggregated by key, then ordered and cut;</li>
 *   <li>DISTINCT: duplicates across shards removed.</li>
 * </ul>
 * Anything that per-shard answers cannot reproduce (subqueries, HAVING, window functions,
 * {@code count(distinct ...)}, set operations, ...) throws {@link UnsupportedScatterQueryException}
 * before any SQL is sent.
 *
 * <p>Memory is bounded: the merge holds at most {@value ShardwiseSettings#SCATTER_MAX_ROWS} rows
 * (default 100,000), summed over the shards. Shards send their rows from a server-side cursor,
 * {@value ShardwiseSettings#SCATTER_FETCH_SIZE} at a time, counted as they arrive; one row past the
 * cap ends the query with {@link ScatterRowLimitException}. An offset + limit over the cap is
 * refused before any SQL is sent. Text is ordered by Java's {@code String} order, PostgreSQL's under the
 * "C" collation.
 *
 * <p>Each shard runs in its own read-only session (a replica serves when one is configured and
 * healthy), under a {@code statement_timeout} equal to the time left before the {@link #deadline}.
 * A shard that fails or is late makes the query throw {@link ScatterGatherException}, or, under
 * {@link ShardFailurePolicy#PARTIAL}, be left out and named in {@link ScatterResult#missingShards()}.
 * Entities come back detached.
 */
public final class ScatterQuery<T> {
  /** The deadline when none is given. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(30);
  private static final String AFTER_PARAMETER = "shardwise_after_";

  private final ShardedSessions shards;
  private final ShardwiseRuntime runtime;
  private final String hql;
  private final Class<T> resultType;
  private final Map<String, Object> named = new LinkedHashMap<>();
  private final Map<Integer, Object> positional = new LinkedHashMap<>();
  private int firstResult = -1;
  private int maxResults = -1;
  private Duration deadline = DEFAULT_DEADLINE;
  private ShardFailurePolicy policy = ShardFailurePolicy.FAIL;
  private Object[] after;

  ScatterQuery(ShardedSessions shards, ShardwiseRuntime runtime, String hql, Class<T> resultType) {
    this.shards = shards;
    this.runtime = runtime;
    this.hql = hql;
    this.resultType = resultType;
  }

  public ScatterQuery<T> setParameter(String name, Object value) {
    named.put(name, value);
    return this;
  }

  public ScatterQuery<T> setParameter(int position, Object value) {
    positional.put(position, value);
    return this;
  }

  /** Rows to skip after merging; each shard then returns up to first + max rows. */
  public ScatterQuery<T> setFirstResult(int firstResult) {
    if (firstResult < 0) {
      throw new IllegalArgumentException("setFirstResult(" + firstResult + "): must be 0 or more");
    }
    this.firstResult = firstResult;
    return this;
  }

  public ScatterQuery<T> setMaxResults(int maxResults) {
    if (maxResults < 0) {
      throw new IllegalArgumentException("setMaxResults(" + maxResults + "): must be 0 or more");
    }
    this.maxResults = maxResults;
    return this;
  }

  /** How long the whole query may take; a shard that has not answered by then is late. Default 30 s. */
  public ScatterQuery<T> deadline(Duration deadline) {
    if (deadline == null || deadline.isNegative() || deadline.isZero()) {
      throw new IllegalArgumentException("deadline(" + deadline + "): must be positive");
    }
    this.deadline = deadline;
    return this;
  }

  /** What a failed or late shard does to the query. Default {@link ShardFailurePolicy#FAIL}. */
  public ScatterQuery<T> onShardFailure(ShardFailurePolicy policy) {
    this.policy = java.util.Objects.requireNonNull(policy, "policy");
    return this;
  }

  /**
   * Keyset pagination: only rows strictly after {@code lastSortKey} in the query's ORDER BY (one
   * value per ORDER BY item, typically {@link ScatterResult#lastSortKey()} of the previous page).
   * With {@link #setMaxResults page size} n, each shard returns at most n rows whatever the page,
   * so memory stays within n × shard count. The ORDER BY must be total (end with a unique
   * attribute such as the id), its attributes non-null, and the query neither grouped nor aggregated.
   */
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

  public List<T> getResultList() {
    return getResult().rows();
  }

  /** Runs the query: the merged rows, the shards that were missing (PARTIAL), and timings. */
  public ScatterResult<T> getResult() {
    long started = System.nanoTime();
    long deadlineNanos = started + deadline.toNanos();
    ScatterPlan plan = ScatterPlanner.plan(shards.sessionFactory().unwrap(SessionFactoryImplementor.class), hql,
        type -> {
          ShardedEntity entity = runtime.model().byClass(type);
          return entity == null ? null : entity.reference() ? ScatterPlanner.REFERENCE : entity.group();
        });
    boolean single = plan.selectionCount() == 1 && resultType != Object[].class;
    if (!single && resultType != Object[].class && resultType != Object.class) {
      throw new IllegalArgumentException("[" + hql + "] selects " + plan.selectionCount() + " values: ask for"
          + " Object[].class, not " + resultType.getName());
    }
    long offset = firstResult >= 0 ? firstResult : plan.offset();
    long limit = maxResults >= 0 ? maxResults : plan.limit();
    int maxRows = runtime.config().scatterMaxRows();
    checkPageFits(offset, limit, maxRows);

    Map<String, Object> keysetParameters = new LinkedHashMap<>();
    String keyset = after == null ? null : keysetPredicate(plan, keysetParameters);
    // offset + limit <= maxRows <= Integer.MAX_VALUE, checked above
    int perShardMax = plan.pushesDownLimit() && limit >= 0 ? (int) (offset + limit) : -1;
    String shardHql = plan.shardHql(keyset);
    RowBudget budget = new RowBudget(maxRows);

    Map<String, Callable<List<Object[]>>> tasks = new LinkedHashMap<>();
    for (String shardId : shards.shardIds()) {
      tasks.put(shardId, () -> runOnShard(shardId, shardHql, keysetParameters, perShardMax, deadlineNanos, budget));
      if (plan.oneShard()) {
        break; // reference tables only: every shard holds the same rows
      }
    }
    ScatterExecutor.Outcome<List<Object[]>> outcome =
        runtime.scatterExecutor().run(tasks, deadlineNanos, policy == ShardFailurePolicy.FAIL);
    for (Throwable error : outcome.errors().values()) {
      ScatterRowLimitException overCap = causeOfType(error, ScatterRowLimitException.class);
      if (overCap != null) {
        // too many rows is the query's shape, not a lost shard: PARTIAL does not make it a smaller answer
        throw new ScatterRowLimitException(overCap.getMessage(), overCap);
      }
    }
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
    List<Object[]> merged = ScatterMerge.merge(plan, perShard, offset, limit);
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

  /**
   * Refuses, before any SQL, a page that would make every shard send more than {@code maxRows}
   * rows: each shard must send offset + limit of them for the merge to skip the offset.
   */
  private void checkPageFits(long offset, long limit, int maxRows) {
    if (offset < 0 || limit < -1) {
      throw new IllegalArgumentException("[" + hql + "]: offset " + offset + " and limit " + limit
          + " must not be negative");
    }
    boolean fits = offset <= maxRows && (limit < 0 || limit <= maxRows - offset);
    if (fits) {
      return;
    }
    String page = limit < 0 ? "skips " + offset + " rows" : "skips " + offset + " rows and returns up to " + limit;
    throw new ScatterRowLimitException("Scatter query [" + hql + "] " + page + ": every shard would have to send"
        + " offset + limit rows, more than " + ShardwiseSettings.SCATTER_MAX_ROWS + " = " + maxRows + ". Page with"
        + " after(lastSortKey) instead of an offset (keyset pagination: every page costs one page per shard),"
        + " ask for fewer rows, or raise " + ShardwiseSettings.SCATTER_MAX_ROWS + ".");
  }

  /** The rows a query holds, summed over its shards, against {@code shardwise.scatter.max_rows}. */
  private final class RowBudget {
    private final int maxRows;
    private final java.util.concurrent.atomic.AtomicLong held = new java.util.concurrent.atomic.AtomicLong();

    RowBudget(int maxRows) {
      this.maxRows = maxRows;
    }

    void takeOne(String shardId) {
      if (held.incrementAndGet() > maxRows) {
        throw new ScatterRowLimitException("Scatter query [" + hql + "] would hold more than "
            + ShardwiseSettings.SCATTER_MAX_ROWS + " = " + maxRows + " rows in memory (the cap was reached while"
            + " shard '" + shardId + "' sent its rows; the merge holds every row the shards send). Add a limit"
            + " (setMaxResults or LIMIT), page with after(lastSortKey) (keyset pagination), narrow the WHERE"
            + " clause, or raise " + ShardwiseSettings.SCATTER_MAX_ROWS + ".");
      }
    }
  }

  private static <E extends Throwable> E causeOfType(Throwable error, Class<E> type) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }

  private List<Object[]> runOnShard(String shardId, String shardHql, Map<String, Object> keysetParameters,
      int perShardMax, long deadlineNanos, RowBudget budget) {
    return shards.forShard(shardId).readOnly().fromTransaction(session -> {
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
        named.forEach(query::setParameter);
        positional.forEach(query::setParameter);
        keysetParameters.forEach(query::setParameter);
        if (perShardMax >= 0) {
          query.setMaxResults(perShardMax);
        }
        // a server-side cursor: rows arrive fetch_size at a time and are counted as they come, so
        // a shard with millions of matching rows is stopped at the cap, not after loading them all
        query.setFetchSize(runtime.config().scatterFetchSize());
        List<Object[]> rows = new ArrayList<>();
        try (ScrollableResults<Object[]> cursor = query.scroll(ScrollMode.FORWARD_ONLY)) {
          while (cursor.next()) {
            budget.takeOne(shardId);
            rows.add(cursor.get());
          }
        }
        return rows;
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
