package io.shardwise.hibernate.operations;

/**
 * A shard key column that looks like one of the sharding anti-patterns, judged from PostgreSQL's
 * sampled statistics ({@code pg_stats}, filled by {@code ANALYZE} or autovacuum): never a scan of
 * the table.
 *
 * @param table the table, as mapped
 * @param column its shard key column
 * @param shardId the shard whose statistics were read
 * @param distinctKeys PostgreSQL's estimate of the column's distinct values on that shard
 * @param correlation how closely the column's order follows the rows' physical order (-1 to 1)
 * @param message what it means and what to do
 */
public record ShardKeyWarning(Kind kind, String table, String column, String shardId, double distinctKeys,
    double correlation, String message) {

  /** Which anti-pattern. */
  public enum Kind {
    /** Fewer distinct keys than buckets: each key's whole traffic stays on one shard, some buckets stay empty. */
    LOW_CARDINALITY,
    /** Keys that only grow, under range sharding: every new row goes to the last range's shard. */
    MONOTONIC
  }
}
