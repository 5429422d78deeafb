package io.shardwise.hibernate.scatter;

import io.shardwise.hibernate.ShardwiseSettings;
import java.time.Duration;
import java.util.List;

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
 *   <li>DISTINCT: duplicates across shards removed;</li>
 *   <li>HAVING: evaluated over the merged groups (the shards return every partial group);</li>
 *   <li>{@code count}, {@code sum} and {@code avg} of {@code distinct} values: each shard also
 *       groups by the distinct argument, and the merge aggregates the union of the values.</li>
 * </ul>
 * Anything that per-shard answers cannot reproduce (subqueries, window functions, set
 * operations, ...) throws {@link UnsupportedScatterQueryException}
 * before any SQL is sent.
 *
 * <p>Memory is bounded: the merge holds at most {@value ShardwiseSettings#SCATTER_MAX_ROWS} rows
 * (default 100,000), summed over the shards. Shards send their rows from a server-side cursor,
 * {@value ShardwiseSettings#SCATTER_FETCH_SIZE} at a time, counted as they arrive; one row past the
 * cap ends the query with {@link ScatterRowLimitException}. An offset + limit over the cap is
 * refused before any SQL is sent. Text is ordered by Java's {@code String} order, PostgreSQL's under
 * the "C" collation.
 *
 * <p>Each shard runs in its own read-only session (a replica serves when one is configured and
 * healthy), under a {@code statement_timeout} equal to the time left before the {@link #deadline}.
 * A shard that fails or is late makes the query throw {@link ScatterGatherException}, or, under
 * {@link ShardFailurePolicy#PARTIAL}, be left out and named in {@link ScatterResult#missingShards()}.
 * Entities come back detached.
 */
public interface ScatterQuery<T> {
  /** The deadline when none is given. */
  Duration DEFAULT_DEADLINE = Duration.ofSeconds(30);

  ScatterQuery<T> setParameter(String name, Object value);

  ScatterQuery<T> setParameter(int position, Object value);

  /** Rows to skip after merging; each shard then returns up to first + max rows. */
  ScatterQuery<T> setFirstResult(int firstResult);

  ScatterQuery<T> setMaxResults(int maxResults);

  /** How long the whole query may take; a shard that has not answered by then is late. Default 30 s. */
  ScatterQuery<T> deadline(Duration deadline);

  /** What a failed or late shard does to the query. Default {@link ShardFailurePolicy#FAIL}. */
  ScatterQuery<T> onShardFailure(ShardFailurePolicy policy);

  /**
   * Keyset pagination: only rows strictly after {@code lastSortKey} in the query's ORDER BY (one
   * value per ORDER BY item, typically {@link ScatterResult#lastSortKey()} of the previous page).
   * With {@link #setMaxResults page size} n, each shard returns at most n rows whatever the page,
   * so memory stays within n × shard count. The ORDER BY must be total (end with a unique
   * attribute such as the id), its attributes non-null, and the query neither grouped nor aggregated.
   */
  ScatterQuery<T> after(Object... lastSortKey);

  List<T> getResultList();

  /**
   * The one row the query returns, such as a count:
   * {@code shards.scatter().createQuery("select count(o) from PurchaseOrder o", Long.class).getSingleResult()}.
   *
   * @throws jakarta.persistence.NoResultException if it returns no row
   * @throws jakarta.persistence.NonUniqueResultException if it returns more than one
   */
  T getSingleResult();

  /**
   * The one row the query returns, or null when it returns none.
   *
   * @throws jakarta.persistence.NonUniqueResultException if it returns more than one
   */
  T getSingleResultOrNull();

  /** Runs the query: the merged rows, the shards that were missing (PARTIAL), and timings. */
  ScatterResult<T> getResult();
}
