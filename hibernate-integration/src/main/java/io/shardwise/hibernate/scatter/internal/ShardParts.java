package io.shardwise.hibernate.scatter.internal;

import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.internal.jdbc.ShardConnection;
import io.shardwise.hibernate.metrics.ShardwiseObservations;
import io.shardwise.hibernate.internal.query.QueryGuard;
import io.shardwise.hibernate.scatter.ScatterGatherException;
import io.shardwise.hibernate.scatter.ScatterRowLimitException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.hibernate.ScrollMode;
import org.hibernate.Session;
import org.hibernate.ScrollableResults;
import org.hibernate.query.SelectionQuery;

/**
 * One shard's part of a {@link ParallelScatterQuery}: how it reads its rows ({@link Part}: one statement,
 * first fetch then cursor, or a cursor in a read-only transaction), bounded by the deadline (the
 * server's statement_timeout or the driver's cancellation, and the socket timeout), on a pooled
 * connection or inside the joined session's transaction, each row counted against the query's
 * {@link RowBudget}. The planning, the fan-out and the merge stay in {@link ParallelScatterQuery}.
 */
final class ShardParts {
  /** How much longer than the deadline a shard's socket may stay silent: the server's statement_timeout fires first. */
  private static final long SOCKET_GRACE_MS = 2000;

  private final ScatterContext context;
  private final Map<String, Object> named;
  private final Map<Integer, Object> positional;

  /** {@code named} and {@code positional} are the query's parameters, as its caller sets them. */
  ShardParts(ScatterContext context, Map<String, Object> named, Map<Integer, Object> positional) {
    this.context = context;
    this.named = named;
    this.positional = positional;
  }

  /** The rows a query holds, summed over its shards, against {@code shardwise.scatter.max_rows}. */
  static final class RowBudget {
    private final String hql;
    private final int maxRows;
    private final AtomicLong held = new AtomicLong();

    RowBudget(String hql, int maxRows) {
      this.hql = hql;
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

  /**
   * The joined session's part: on its own connection, inside its transaction, on the calling
   * thread. The deadline's statement_timeout and socket timeout are set for this part only and put
   * back afterwards, since the transaction goes on after the query.
   */
  List<Object[]> readInJoinedTransaction(String shardId, boolean inTransaction,
      ShardwiseObservations.Observed scatter, Function<Session, List<Object[]>> work) {
    Session joined = context.joined();
    long started = System.nanoTime();
    boolean failed = true;
    String[] statementTimeout = new String[1];
    int[] networkTimeout = new int[1];
    joined.doWork(c -> {
      networkTimeout[0] = c.getNetworkTimeout();
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SHOW statement_timeout")) {
        rs.next();
        statementTimeout[0] = rs.getString(1);
      }
    });
    try {
      List<Object[]> rows = work.apply(joined);
      failed = false;
      return rows;
    } finally {
      context.metrics().scatterShard(shardId, System.nanoTime() - started, failed);
      try {
        joined.doWork(c -> {
          c.setNetworkTimeout(Runnable::run, networkTimeout[0]);
          try (PreparedStatement s = c.prepareStatement("SELECT set_config('statement_timeout', ?, true)")) {
            s.setString(1, statementTimeout[0]);
            s.execute();
          }
        });
      } catch (RuntimeException restoreFailure) {
        if (!failed) {
          throw restoreFailure;
        }
        // the part failed, so PostgreSQL has aborted the transaction: its settings go with it
      }
    }
  }

  /**
   * Whether every shard sends at most one fetch of rows ({@code shardwise.scatter.fetch_size}): a
   * pushed-down limit no larger than that, or an aggregate without grouping (one row per shard).
   * Such a part needs no cursor, so it runs as one autocommit statement, cancelled at the deadline
   * by the driver: no transaction to begin and commit, no {@code SET LOCAL statement_timeout}
   * ({@link Part#ONE_STATEMENT}).
   */
  boolean boundedPerShard(ScatterPlan plan, int perShardMax) {
    return plan.shape() == ScatterPlan.Shape.AGGREGATE && plan.groupBy() == null
        || perShardMax >= 0 && perShardMax <= context.settings().fetchSize();
  }

  /** How one shard's part reads its rows. */
  enum Part {
    /**
     * The part sends at most one fetch ({@link #boundedPerShard}): one autocommit statement, which
     * the driver cancels on the server at the deadline.
     */
    ONE_STATEMENT,
    /**
     * The part's size is not known: one autocommit statement asks for one row more than a fetch; if
     * the rows fit one fetch they are the answer (a {@code group by} over a few groups, a filter that
     * leaves few rows), else the part is read again through a cursor, as {@link #CURSOR}, in the same
     * session. Never more than a fetch and a row is held before the rows are counted against the cap.
     */
    FIRST_FETCH_THEN_CURSOR,
    /**
     * A server-side cursor inside a read-only transaction, its rows counted against the cap as they
     * arrive; every fetch is a statement of its own, so the server's {@code statement_timeout} is set
     * to the time left. The joined session's part, and a part that fetches a join (whose row limit
     * Hibernate might apply in memory), always read this way.
     */
    CURSOR
  }

  /**
   * One shard's part, read as {@code part} says. The socket timeout follows the deadline (plus a
   * grace, so the server's cancellation arrives first), not the pool's point-lookup default, which
   * the pool restores when the connection comes back.
   */
  List<Object[]> runOnShard(ScatterContext.ShardReader reader, String shardId,
      ShardwiseObservations.Observed scatter, String shardHql, Map<String, Object> keysetParameters, int perShardMax,
      Part part, long deadlineNanos, RowBudget budget, ScalarRead scalar) {
    if (scalar != null) {
      return context.connectionReader().read(shardId, scatter,
          c -> readScalars(c, shardId, scalar, part, perShardMax, deadlineNanos, budget));
    }
    return reader.read(shardId, part == Part.CURSOR, scatter, session -> {
      boundByDeadline(session, shardId, deadlineNanos, part);
      return QueryGuard.bypass(() -> {
        if (part == Part.CURSOR) {
          return readThroughCursor(session, shardId, shardHql, keysetParameters, perShardMax, budget);
        }
        List<Object[]> rows = shardQuery(session, shardHql, keysetParameters, firstAsked(part, perShardMax))
            .getResultList();
        if (fitsFirstRead(part, rows.size(), perShardMax)) {
          countAll(rows, shardId, budget);
          return rows;
        }
        // more than a fetch: the rows are read again through a cursor, so that they are counted as they
        // arrive and a shard with millions of them is stopped at the cap, not after loading them all
        return readInReadOnlyTransaction(session, deadlineNanos, shardId,
            () -> readThroughCursor(session, shardId, shardHql, keysetParameters, perShardMax, budget));
      });
    });
  }

  /**
   * What a part that returns scalars runs on every shard, bound once for the query: its first read,
   * and for a {@link Part#FIRST_FETCH_THEN_CURSOR} part the cursor's, which asks for a different
   * number of rows.
   */
  record ScalarRead(ScalarPartSql.Bound first, ScalarPartSql.Bound cursor) {}

  /**
   * The statements of a part that returns scalars ({@code sql}), the query's values bound by a
   * session from {@code owner} that needs no connection; null when this execution's shape must be
   * read through Hibernate.
   */
  ScalarRead bindScalars(ScalarPartSql sql,
      java.util.function.Supplier<org.hibernate.engine.spi.SharedSessionContractImplementor> owner, Part part,
      int perShardMax, Map<String, Object> keysetParameters) {
    return QueryGuard.bypass(() -> {
      ScalarPartSql.Bound first = sql.bind(owner, named, positional, keysetParameters, firstAsked(part, perShardMax));
      if (first == null || part != Part.FIRST_FETCH_THEN_CURSOR) {
        return first == null ? null : new ScalarRead(first, null);
      }
      ScalarPartSql.Bound cursor = sql.bind(owner, named, positional, keysetParameters, perShardMax);
      return cursor == null ? null : new ScalarRead(first, cursor);
    });
  }

  /**
   * A part that returns scalars, on a read-only connection with no session around it: the deadline
   * goes with the statement (the driver's query timeout cancels it on the server, the socket timeout
   * follows the time left), so the part costs one round trip; when its rows may outnumber a fetch,
   * they are read again through a cursor in a read-only transaction under the server's
   * statement_timeout, as {@link #readInReadOnlyTransaction} does for a session's part.
   */
  private List<Object[]> readScalars(java.sql.Connection c, String shardId, ScalarRead scalar, Part part,
      int perShardMax, long deadlineNanos, RowBudget budget) throws java.sql.SQLException {
    long leftMs = timeLeftMs(shardId, deadlineNanos);
    c.setNetworkTimeout(Runnable::run, socketTimeoutMs(leftMs));
    cancelStatementsAt(c, shardId, deadlineNanos, leftMs);
    List<Object[]> rows = scalar.first().read(c, 0, null);
    if (fitsFirstRead(part, rows.size(), perShardMax)) {
      countAll(rows, shardId, budget);
      return rows;
    }
    c.setAutoCommit(false);
    try {
      setStatementTimeout(c, timeLeftMs(shardId, deadlineNanos));
      rows = scalar.cursor().read(c, context.settings().fetchSize(), () -> budget.takeOne(shardId));
      c.commit();
      return rows;
    } catch (java.sql.SQLException | RuntimeException | Error e) {
      try {
        c.rollback();
      } catch (java.sql.SQLException | RuntimeException rollbackFailure) {
        e.addSuppressed(rollbackFailure);
      }
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  /**
   * How many rows a part's first read asks for: {@link Part#ONE_STATEMENT}, {@code perShardMax}
   * (at most a fetch, or -1 for the one row of an aggregate); else one row past a fetch.
   */
  private int firstAsked(Part part, int perShardMax) {
    int fetchSize = context.settings().fetchSize();
    return part == Part.ONE_STATEMENT ? perShardMax
        : perShardMax >= 0 ? Math.min(perShardMax, fetchSize + 1) : fetchSize + 1;
  }

  /** Whether the first read's {@code rows} rows are the whole part, so that no cursor must read them again. */
  private boolean fitsFirstRead(Part part, int rows, int perShardMax) {
    return part == Part.ONE_STATEMENT || rows <= context.settings().fetchSize() || rows == perShardMax;
  }

  private static void countAll(List<Object[]> rows, String shardId, RowBudget budget) {
    for (int i = 0; i < rows.size(); i++) {
      budget.takeOne(shardId);
    }
  }

  /**
   * Has the driver cancel the connection's statements at the deadline, unless the server's own
   * {@code statement_timeout} ends them sooner anyway (the default: 10 s against a 30 s deadline):
   * then the driver's cancel timer — a task scheduled on its timer thread and cancelled again for
   * every statement — would never fire.
   */
  private void cancelStatementsAt(java.sql.Connection c, String shardId, long deadlineNanos, long leftMs) {
    long serverMs = context.serverStatementTimeoutMs().applyAsLong(shardId);
    if (serverMs == 0 || serverMs > leftMs) {
      ShardConnection.cancelStatementsAt(c, deadlineNanos);
    }
  }

  private static int socketTimeoutMs(long leftMs) {
    return (int) Math.min(Integer.MAX_VALUE, leftMs + SOCKET_GRACE_MS);
  }

  /**
   * The server cancels the part's statements at the deadline — a late shard stops working, not just
   * being waited for — and no read waits on the socket longer than the time left and a grace.
   */
  static void boundByDeadline(Session session, String shardId, long deadlineNanos, Part part) {
    long leftMs = timeLeftMs(shardId, deadlineNanos);
    session.doWork(c -> {
      c.setNetworkTimeout(Runnable::run, socketTimeoutMs(leftMs));
      if (part == Part.CURSOR) {
        setStatementTimeout(c, leftMs);
      } else {
        ShardConnection.cancelStatementsAt(c, deadlineNanos);
      }
    });
  }

  static long timeLeftMs(String shardId, long deadlineNanos) {
    long leftMs = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
    if (leftMs <= 0) {
      throw new ScatterGatherException("Shard '" + shardId + "' got its turn after the deadline", Map.of(), null);
    }
    return leftMs;
  }

  static void setStatementTimeout(java.sql.Connection c, long leftMs) throws java.sql.SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SET LOCAL statement_timeout = " + leftMs);
    }
  }

  /**
   * {@code work} in a transaction of {@code session} (opened outside one, read-only), under a
   * {@code statement_timeout} of the time left: committed when it returns, rolled back when it throws.
   */
  static List<Object[]> readInReadOnlyTransaction(Session session, long deadlineNanos, String shardId,
      java.util.function.Supplier<List<Object[]>> work) {
    org.hibernate.Transaction tx = session.beginTransaction();
    try {
      long leftMs = timeLeftMs(shardId, deadlineNanos);
      session.doWork(c -> setStatementTimeout(c, leftMs));
      List<Object[]> rows = work.get();
      tx.commit();
      return rows;
    } catch (RuntimeException | Error e) {
      if (tx.isActive()) {
        try {
          tx.rollback();
        } catch (RuntimeException rollbackFailure) {
          e.addSuppressed(rollbackFailure);
        }
      }
      throw e;
    }
  }

  /** The shard query, its parameters bound, limited to {@code maxRows} rows unless that is -1. */
  SelectionQuery<Object[]> shardQuery(Session session, String shardHql, Map<String, Object> keysetParameters,
      int maxRows) {
    // shardHql carries QueryGuard's scatter-gather mark already: one string for every shard, its hash computed once
    SelectionQuery<Object[]> query = session.createSelectionQuery(shardHql, Object[].class);
    if (!named.isEmpty()) {
      // a parameter of the HAVING alone is not in the shard query: the merge evaluates HAVING
      Set<String> names = query.getParameterMetadata().getNamedParameterNames();
      named.forEach((name, value) -> {
        if (names.contains(name)) {
          query.setParameter(name, value);
        }
      });
    }
    if (!positional.isEmpty()) {
      Set<Integer> positions = query.getParameterMetadata().getParameters().stream()
          .map(org.hibernate.query.QueryParameter::getPosition).filter(java.util.Objects::nonNull)
          .collect(Collectors.toSet());
      positional.forEach((position, value) -> {
        if (positions.contains(position)) {
          query.setParameter(position, value);
        }
      });
    }
    keysetParameters.forEach(query::setParameter);
    if (maxRows >= 0) {
      query.setMaxResults(maxRows);
    }
    return query;
  }

  /**
   * The part through a server-side cursor (the session must be in a transaction): rows arrive
   * {@code fetch_size} at a time and are counted as they come.
   */
  List<Object[]> readThroughCursor(Session session, String shardId, String shardHql,
      Map<String, Object> keysetParameters, int perShardMax, RowBudget budget) {
    SelectionQuery<Object[]> query = shardQuery(session, shardHql, keysetParameters, perShardMax);
    query.setFetchSize(context.settings().fetchSize());
    List<Object[]> rows = new ArrayList<>();
    try (ScrollableResults<Object[]> cursor = query.scroll(ScrollMode.FORWARD_ONLY)) {
      while (cursor.next()) {
        budget.takeOne(shardId);
        rows.add(cursor.get());
      }
    }
    return rows;
  }
}
