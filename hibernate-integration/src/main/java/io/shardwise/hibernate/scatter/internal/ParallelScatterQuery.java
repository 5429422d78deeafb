package io.shardwise.hibernate.scatter.internal;

import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.metrics.ShardwiseObservations;
import io.shardwise.hibernate.routing.BucketStrategy;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.internal.query.QueryGuard;
import io.shardwise.hibernate.scatter.ScatterGatherException;
import io.shardwise.hibernate.scatter.ScatterQuery;
import io.shardwise.hibernate.scatter.ScatterResult;
import io.shardwise.hibernate.scatter.ScatterRowLimitException;
import io.shardwise.hibernate.scatter.ShardFailurePolicy;
import io.shardwise.hibernate.scatter.UnsupportedScatterQueryException;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.SortKey;
import io.shardwise.hibernate.scatter.internal.ShardParts.Part;
import io.shardwise.hibernate.scatter.internal.ShardParts.RowBudget;
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
import org.hibernate.FlushMode;
import org.hibernate.ScrollMode;
import org.hibernate.Session;
import org.hibernate.engine.spi.SessionFactoryImplementor;

/**
 * {@link ScatterQuery} planned from Hibernate's model of the query and fanned out on the {@link ScatterExecutor}.
 * This class owns the query's parameters and options, its plan for each shard (bucket filter, keyset
 * predicate, pushed-down limit), the fan-out and its failures, the lazily merged top-N and the merge;
 * how one shard's part reads its rows (statement or cursor, under the deadline, counted against the row
 * cap) is {@link ShardParts}.
 */
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
  private final ShardParts parts;

  ParallelScatterQuery(ScatterContext context, String hql, Class<T> resultType) {
    this.context = context;
    this.parts = new ShardParts(context, named, positional);
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
    ShardwiseObservations observations = context.observations();
    if (observations == null) {
      return result(null);
    }
    ShardwiseObservations.Observed observed = observations.scatter(hql);
    try {
      return result(observed);
    } catch (RuntimeException e) {
      observed.error(e);
      throw e;
    } finally {
      observed.stop();
    }
  }

  /** The query's result; {@code observed} is its observation, or null when tracing is off. */
  private ScatterResult<T> result(ShardwiseObservations.Observed observed) {
    long started = System.nanoTime();
    long deadlineNanos = started + deadline.toNanos();
    ScatterPlans.Planned planned = context.plans().planned(
        context.sessionFactory().unwrap(SessionFactoryImplementor.class), hql, context.placement());
    ScatterPlan plan = planned.plan();
    boolean single = plan.selectionCount() == 1 && resultType != Object[].class;
    if (!single && resultType != Object[].class && resultType != Object.class) {
      throw new IllegalArgumentException("[" + hql + "] selects " + plan.selectionCount() + " values: ask for"
          + " Object[].class, not " + resultType.getName());
    }
    long offset = firstResult >= 0 ? firstResult : plan.offset();
    long limit = maxResults >= 0 ? maxResults : plan.limit();
    int maxRows = context.settings().maxRows();
    checkPageFits(offset, limit, maxRows);

    Map<String, Object> keysetParameters = new LinkedHashMap<>();
    String keyset = after == null ? null : keysetPredicate(plan, keysetParameters);
    // offset + limit <= maxRows <= Integer.MAX_VALUE, checked above
    int perShardMax = plan.pushesDownLimit() && limit >= 0 ? (int) (offset + limit) : -1;
    String shardHql = keyset == null ? planned.markedShardHql() : QueryGuard.scatterGather(plan.shardHql(keyset));
    RowBudget budget = new RowBudget(hql, maxRows);
    // one snapshot of the map: while buckets move, each shard is read only for the buckets it serves
    // reads of (no cost otherwise: the filter is built only when some bucket has a copy)
    ShardMap map = context.map().get();
    boolean filtered = map.hasCopies() && !plan.oneShard();
    if (filtered && plan.outerJoin() != null) {
      throw new UnsupportedScatterQueryException("Scatter-gather cannot answer [" + hql + "] correctly while buckets"
          + " move between shards (shard map version " + map.version() + "): " + plan.outerJoin() + ", and during a"
          + " move two shards hold the moving rows; filtering each shard to the buckets it serves would turn the"
          + " filtered copies into null-extended rows instead of removing them. Instead: use an inner join (or a"
          + " separate scatter query per entity), or run the query before the move starts or after it completes"
          + " (Resharding.status shows the moves).");
    }
    Set<String> shardIds = filtered ? map.shards().keySet() : context.shardIds().get();
    String joinedShard = joinedShard(shardIds);
    if (joinedShard != null && plan.oneShard()) {
      shardIds = Set.of(joinedShard);
    }

    Part part = parts.boundedPerShard(plan, perShardMax) ? Part.ONE_STATEMENT
        : plan.fetchJoin() ? Part.CURSOR : Part.FIRST_FETCH_THEN_CURSOR;
    // a part that returns scalars only: one plain statement, no Hibernate query (not for a shard whose
    // text gets a bucket filter during a move, nor for the joined part, which runs in the caller's transaction)
    ScalarPartSql scalarSql = keyset == null ? planned.scalarSql()
        : context.plans().keysetScalarSql(context.sessionFactory().unwrap(SessionFactoryImplementor.class), planned,
            shardHql);
    // a lazily merged top-N saves materialising entities the merge does not take: scalars cost nothing to read
    boolean lazy = scalarSql == null && mergedLazily(plan, part, joinedShard, perShardMax);
    // bound once for every shard, each of which then runs it on a pooled connection with no session around it
    ShardParts.ScalarRead scalarRead = scalarSql == null || context.connectionReader() == null ? null
        : bindScalars(scalarSql, part, perShardMax, keysetParameters, shardIds);
    Map<String, Callable<List<Object[]>>> tasks = new LinkedHashMap<>();
    Map<String, Callable<OpenPart>> openTasks = new LinkedHashMap<>();
    OpenParts open = lazy ? new OpenParts() : null;
    for (String shardId : shardIds) {
      String bucketFilter = filtered ? bucketFilter(plan, map, shardId) : null;
      String hqlOfShard = bucketFilter == null ? shardHql : QueryGuard.scatterGather(plan.shardHql(keyset, bucketFilter));
      if (lazy) {
        openTasks.put(shardId, () -> open.add(openOnShard(shardId, observed, hqlOfShard, keysetParameters, perShardMax,
            deadlineNanos)));
      } else {
        boolean joined = shardId.equals(joinedShard);
        ScatterContext.ShardReader reader = joined ? parts::readInJoinedTransaction : context.reader();
        // the joined part runs inside the caller's transaction: the server's statement_timeout, put back after it
        Part partHere = joined ? Part.CURSOR : part;
        ShardParts.ScalarRead scalarOfShard = joined || bucketFilter != null ? null : scalarRead;
        tasks.put(shardId, () -> parts.runOnShard(reader, shardId, observed, hqlOfShard, keysetParameters, perShardMax,
            partHere, deadlineNanos, budget, scalarOfShard));
      }
      if (plan.oneShard()) {
        break; // reference tables only: every shard holds the same rows
      }
    }
    // the caller only waits otherwise: it runs one part itself (the joined part when there is one)
    String callerShard = joinedShard != null ? joinedShard
        : callerRunsPart(lazy ? openTasks.keySet() : tasks.keySet(), map, deadlineNanos);
    List<Object[]> merged;
    Map<String, Integer> shardRows = new LinkedHashMap<>();
    ScatterExecutor.Outcome<?> outcome;
    if (lazy) {
      Throwable failure = null;
      try {
        ScatterExecutor.Outcome<OpenPart> parts = fanOut(openTasks, callerShard, deadlineNanos, observed);
        outcome = parts;
        List<java.util.Iterator<Object[]>> perShard = new ArrayList<>(parts.results().size());
        for (Map.Entry<String, OpenPart> p : parts.results().entrySet()) {
          perShard.add(rowsOf(p.getKey(), p.getValue(), budget, openTasks.size(), open));
        }
        merged = ScatterMerge.mergeOrdered(plan, perShard, offset, limit);
        parts.results().forEach((shardId, p) -> shardRows.put(shardId, p.rowsRead()));
      } catch (RuntimeException | Error e) {
        failure = e;
        throw e;
      } finally {
        open.closeAll(failure);
      }
    } else {
      ScatterExecutor.Outcome<List<Object[]>> parts = fanOut(tasks, callerShard, deadlineNanos, observed);
      outcome = parts;
      List<List<Object[]>> perShard = new ArrayList<>();
      for (String shardId : tasks.keySet()) {
        List<Object[]> rows = parts.results().get(shardId);
        if (rows != null) {
          perShard.add(rows);
          shardRows.put(shardId, rows.size());
        }
      }
      merged = ScatterMerge.merge(plan, perShard, offset, limit, named, positional);
    }
    List<T> rows = new ArrayList<>(merged.size());
    for (Object[] row : merged) {
      rows.add(resultType.cast(single ? row[0] : Arrays.copyOf(row, plan.selectionCount())));
    }
    Object[] last = null;
    List<SortKey> sortKeys = plan.sortKeys();
    if (!sortKeys.isEmpty() && !merged.isEmpty()) {
      Object[] lastRow = merged.get(merged.size() - 1);
      last = new Object[sortKeys.size()];
      for (int i = 0; i < last.length; i++) {
        last[i] = lastRow[sortKeys.get(i).slot()];
      }
    }
    // every collection here is new and owned by this result: wrapped, not copied
    return new ScatterResult<>(java.util.Collections.unmodifiableList(rows), readOnly(outcome.missing()),
        readOnly(outcome.times()), readOnly(shardRows), Duration.ofNanos(System.nanoTime() - started), last);
  }

  private static <K, V> Map<K, V> readOnly(Map<K, V> map) {
    return map.isEmpty() ? Map.of() : java.util.Collections.unmodifiableMap(map);
  }

  /**
   * The statements of a part that returns scalars with this execution's values bound; when there
   * are values to bind, by a stateless session that never takes a connection (Hibernate's binders
   * want a session: a value's time zone, an entity parameter's id), closed as soon as they are
   * bound. Null when this shape is read through Hibernate.
   */
  private ShardParts.ScalarRead bindScalars(ScalarPartSql scalarSql, Part part, int perShardMax,
      Map<String, Object> keysetParameters, Set<String> shardIds) {
    if (shardIds.isEmpty()) {
      return null;
    }
    org.hibernate.StatelessSession[] binding = new org.hibernate.StatelessSession[1];
    try {
      return parts.bindScalars(scalarSql, () -> {
        if (binding[0] == null) {
          binding[0] = io.shardwise.hibernate.internal.ShardSessions.openForBinding(context.sessionFactory(),
              shardIds.iterator().next());
        }
        return binding[0].unwrap(org.hibernate.engine.spi.SharedSessionContractImplementor.class);
      }, part, perShardMax, keysetParameters);
    } finally {
      if (binding[0] != null) {
        binding[0].close();
      }
    }
  }

  /**
   * The shard whose part the calling thread runs itself, or null: the first shard, when its part is
   * as bounded on the caller as on the executor — no replica (so no retry on another node), and a
   * primary checkout timeout shorter than the time left (so waiting for a connection cannot outlast
   * the deadline); its statements are then cancelled by the server at the deadline, and no read
   * waits on its socket past the deadline and the grace, the joined part's bound.
   */
  private String callerRunsPart(Set<String> shards, ShardMap map, long deadlineNanos) {
    if (shards.size() < 2) {
      return null; // one part: nothing to overlap, and a lone part keeps its executor isolation
    }
    String first = shards.iterator().next();
    io.shardwise.hibernate.routing.ShardDescriptor shard = map.shards().get(first);
    long leftMs = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
    return shard != null && shard.replicaUrls().isEmpty() && context.checkoutTimeoutMs().applyAsLong(first) < leftMs
        ? first : null;
  }

  /**
   * Runs {@code tasks} on the executor (the task of {@code joinedShard}, when not null, on the
   * calling thread) and returns what they gave, unless a shard was lost under policy FAIL or a
   * part went over the row cap: then it throws, as every shape does.
   */
  private <R> ScatterExecutor.Outcome<R> fanOut(Map<String, Callable<R>> tasks, String joinedShard, long deadlineNanos,
      ShardwiseObservations.Observed observed) {
    context.metrics().scatterFanOut(tasks.size());
    if (observed != null) {
      context.observations().fannedOut(observed, tasks.size());
    }
    ScatterExecutor.Outcome<R> outcome =
        context.executor().get().run(tasks, joinedShard, deadlineNanos, policy == ShardFailurePolicy.FAIL);
    for (Throwable error : outcome.errors().values()) {
      ScatterRowLimitException overCap = causeOfType(error, ScatterRowLimitException.class);
      if (overCap != null) {
        // too many rows is the query's shape, not a lost shard: PARTIAL does not make it a smaller answer
        throw new ScatterRowLimitException(overCap.getMessage(), overCap);
      }
    }
    if (!outcome.missing().isEmpty() && policy == ShardFailurePolicy.FAIL) {
      throw lost(outcome.missing(), tasks.size(), outcome.errors().values().stream().findFirst().orElse(null), "");
    }
    return outcome;
  }

  private ScatterGatherException lost(Map<String, String> missing, int shards, Throwable cause, String when) {
    return new ScatterGatherException("Scatter query [" + hql + "] lost " + missing.size() + " of " + shards
        + " shards under policy FAIL" + when + ": " + missing.entrySet().stream()
            .map(e -> e.getKey() + " " + e.getValue()).collect(Collectors.joining("; "))
        + ". Bring the shard back, raise the deadline (" + deadline.toMillis() + " ms), or accept a partial"
        + " result with onShardFailure(PARTIAL)", missing, cause);
  }

  // ---- the lazily merged top-N ---------------------------------------------------------------

  /**
   * Whether the shards' rows are merged lazily ({@link OpenPart}): a plain ordered selection whose
   * limit is pushed down to one short statement per shard, so that each part's rows are in the
   * driver's memory once it executed, and only the rows the merge consumes — offset + limit + k - 1
   * of k shards, not k times offset + limit — become entities. Not for a join fetch (Hibernate may
   * cut its rows in memory), the joined session's part (it runs in the caller's transaction, on the
   * caller's thread), or PARTIAL (a part that fails while the merge reads it could not be left out
   * of rows already given out).
   */
  private boolean mergedLazily(ScatterPlan plan, Part part, String joinedShard, int perShardMax) {
    return part == Part.ONE_STATEMENT && plan.shape() == ScatterPlan.Shape.ROWS && !plan.sortKeys().isEmpty()
        && plan.having() == null && !plan.fetchJoin() && !plan.oneShard() && perShardMax >= 0 && joinedShard == null
        && policy == ShardFailurePolicy.FAIL && context.opener() != null;
  }

  /**
   * One shard's part, executed on the executor's thread and left open: the statement runs under the
   * same server-side cancellation and socket timeout as an eager {@link Part#ONE_STATEMENT} part.
   */
  private OpenPart openOnShard(String shardId, ShardwiseObservations.Observed scatter, String shardHql,
      Map<String, Object> keysetParameters, int perShardMax, long deadlineNanos) {
    return context.opener().open(shardId, scatter, session -> {
      ShardParts.boundByDeadline(session, shardId, deadlineNanos, Part.ONE_STATEMENT);
      return QueryGuard.bypass(() -> parts.shardQuery(session, shardHql, keysetParameters, perShardMax)
          .scroll(ScrollMode.FORWARD_ONLY));
    });
  }

  /**
   * The rows of an open part, one by one, each counted against the cap as the merge takes it; a
   * failure while reading it fails the query as a lost shard does, naming the shard.
   */
  private java.util.Iterator<Object[]> rowsOf(String shardId, OpenPart part, RowBudget budget, int shards,
      OpenParts open) {
    return new java.util.Iterator<>() {
      private Object[] next;
      private boolean exhausted;

      @Override
      public boolean hasNext() {
        if (next == null && !exhausted) {
          Object[] row;
          try {
            row = part.next();
          } catch (RuntimeException e) {
            open.failed(part, e);
            throw lost(Map.of(shardId, "failed while its rows were merged: " + e.getClass().getSimpleName() + ": "
                + e.getMessage()), shards, e, " (while merging)");
          }
          if (row == null) {
            exhausted = true;
          } else {
            budget.takeOne(shardId);
            next = row;
          }
        }
        return next != null;
      }

      @Override
      public Object[] next() {
        if (!hasNext()) {
          throw new java.util.NoSuchElementException();
        }
        Object[] row = next;
        next = null;
        return row;
      }
    };
  }

  /**
   * The open parts of one query. Each is closed once: by {@link #closeAll} when the query ends (with
   * its error, if reading that part failed), or at once when it opens after the query has ended (a
   * shard that answered after the deadline, or after another shard failed).
   */
  private static final class OpenParts {
    private final Map<OpenPart, Throwable> parts = new LinkedHashMap<>();
    private boolean closed;

    OpenPart add(OpenPart part) {
      synchronized (this) {
        if (!closed) {
          parts.put(part, null);
          return part;
        }
      }
      part.close(null);
      return part;
    }

    synchronized void failed(OpenPart part, Throwable failure) {
      parts.put(part, failure);
    }

    void closeAll(Throwable failure) {
      Map<OpenPart, Throwable> toClose;
      synchronized (this) {
        closed = true;
        toClose = new LinkedHashMap<>(parts);
        parts.clear();
      }
      RuntimeException closeFailure = null;
      for (Map.Entry<OpenPart, Throwable> p : toClose.entrySet()) {
        try {
          p.getKey().close(p.getValue());
        } catch (RuntimeException e) {
          closeFailure = closeFailure == null ? e : closeFailure;
        }
      }
      if (closeFailure != null && failure == null) {
        throw closeFailure;
      }
    }
  }

  /**
   * The condition that keeps, on {@code shardId}, only rows of buckets it serves reads of: for each
   * sharded entity of the FROM clause, its key's hash (PostgreSQL's own, as in
   * {@link BucketStrategy#sqlBucket}) outside the hash runs of the buckets {@link
   * ShardMap#bucketsNotReadFrom} lists; null when that shard needs no filter.
   */
  private String bucketFilter(ScatterPlan plan, ShardMap map, String shardId) {
    java.util.BitSet excluded = map.bucketsNotReadFrom(shardId);
    if (excluded.isEmpty() || plan.sharded().isEmpty()) {
      return null;
    }
    int buckets = map.bucketCount();
    List<String> conditions = new ArrayList<>();
    for (ScatterPlan.ShardedFrom from : plan.sharded()) {
      ShardedEntity entity = context.entity().apply(from.javaType());
      if (entity == null || entity.keyAttribute() == null || entity.keyType() == null) {
        throw new UnsupportedScatterQueryException("Scatter-gather cannot answer [" + hql + "] correctly while buckets"
            + " move between shards: the shard key of " + from.javaType().getSimpleName() + " is not known, so its"
            + " copied rows cannot be filtered out. Run the query before the move starts or after it completes.");
      }
      // a text key is hashed under its column collation: a deterministic one (the default) hashes the same bytes
      // as sqlHash's COLLATE "C"; keys under a non-deterministic collation are not supported here
      String hash = "cast(function('" + entity.keyType().sqlHashFunction() + "', " + from.alias() + "."
          + entity.keyAttribute() + ", 0) as Long)";
      for (int start = excluded.nextSetBit(0); start >= 0; start = excluded.nextSetBit(start)) {
        int end = excluded.nextClearBit(start); // exclusive
        if (start == 0 && end == buckets) {
          return "1 = 0"; // the shard serves the reads of none of its buckets
        } else if (start == 0) {
          conditions.add(hash + " >= " + literal(BucketStrategy.lowestHash(end, buckets)));
        } else if (end == buckets) {
          conditions.add(hash + " < " + literal(BucketStrategy.lowestHash(start, buckets)));
        } else {
          conditions.add(hash + " not between " + literal(BucketStrategy.lowestHash(start, buckets)) + " and "
              + literal(BucketStrategy.lowestHash(end, buckets) - 1));
        }
        start = end;
      }
    }
    return String.join(" and ", conditions);
  }

  private static String literal(long value) {
    return value + "L";
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

  private static <E extends Throwable> E causeOfType(Throwable error, Class<E> type) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }

  /**
   * The shard of the joined session, once its pending changes are flushed (so that its part of the
   * query sees them); null when the query joins no session, or one that is not on one of the shards
   * to read (a session of no shard holds no sharded rows).
   */
  private String joinedShard(Set<String> shardIds) {
    Session joined = context.joined();
    if (joined == null || !joined.isOpen()) {
      return null;
    }
    String shard = io.shardwise.hibernate.internal.ShardSessions.shardOf(
        joined.unwrap(org.hibernate.engine.spi.SharedSessionContractImplementor.class));
    if (!shardIds.contains(shard)) {
      return null;
    }
    if (joined.getTransaction().isActive() && joined.getHibernateFlushMode() != FlushMode.MANUAL) {
      joined.flush();
    }
    return shard;
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
