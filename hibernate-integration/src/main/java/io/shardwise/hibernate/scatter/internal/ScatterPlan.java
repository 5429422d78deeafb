package io.shardwise.hibernate.scatter.internal;

import java.util.List;

/**
 * How one HQL query runs on every shard and how the per-shard rows become one result. Pure data,
 * built by {@link ScatterPlanner} from Hibernate's semantic model of the query.
 *
 * <p>Every shard runs {@link #shardHql}, which returns {@code Object[]} rows laid out as
 * {@link #columns}. The merge turns them into final rows laid out as {@link #slots}: the
 * query's own selections first ({@link #selectionCount} of them), then hidden values (ORDER BY
 * keys and GROUP BY keys the query does not select), which are dropped before rows reach the caller.
 *
 * @param shape how rows are merged
 * @param columns what each shard returns, and how that column is combined across shards
 * @param slots final row layout: which column each value comes from (and, for AVG, the count column)
 * @param selectionCount how many leading slots the caller sees
 * @param sortKeys the ORDER BY, over final slots
 * @param sortKeyHql the HQL text of each ORDER BY expression (for keyset predicates)
 * @param limit a LIMIT written in the HQL, or -1
 * @param offset an OFFSET written in the HQL, or 0
 * @param oneShard the query reads only reference tables, whose rows every shard holds alike: one
 *     shard answers
 */
public record ScatterPlan(Shape shape, String select, String from, String where, String groupBy, String orderBy,
    List<Column> columns, List<Slot> slots, int selectionCount, List<SortKey> sortKeys, List<String> sortKeyHql,
    long limit, long offset, boolean oneShard) {

  /** How per-shard rows are combined. */
  public enum Shape {
    /** Plain rows: concatenated, or k-way merged when ordered; LIMIT pushed down as offset + limit. */
    ROWS,
    /** {@code select distinct}: as ROWS, then duplicates across shards removed. */
    DISTINCT_ROWS,
    /** Aggregates without GROUP BY: one row per shard, folded into one. */
    AGGREGATE,
    /** GROUP BY: partial groups from every shard re-aggregated by key, then ordered and cut. */
    GROUPED
  }

  /** How a column's values from different shards combine into one (for AGGREGATE and GROUPED). */
  public enum Merge { KEY, COUNT, SUM, MIN, MAX }

  public record Column(String hql, Merge merge) {}

  /** A final value: column {@code column}, divided by column {@code countColumn} when that is not -1 (AVG). */
  public record Slot(int column, int countColumn) {
    public boolean isAverage() {
      return countColumn >= 0;
    }
  }

  /** One ORDER BY item over final slots; {@code nullsFirst} already resolved to PostgreSQL's default when unspecified. */
  public record SortKey(int slot, boolean descending, boolean nullsFirst) {}

  /** True when each shard may run with LIMIT offset + limit and OFFSET 0. */
  public boolean pushesDownLimit() {
    return shape == Shape.ROWS || shape == Shape.DISTINCT_ROWS;
  }

  /**
   * The HQL every shard runs. {@code keysetPredicate}, when not null, is AND-ed to the WHERE
   * clause (keyset pagination).
   */
  public String shardHql(String keysetPredicate) {
    StringBuilder sb = new StringBuilder(select).append(' ').append(from);
    if (where != null && keysetPredicate != null) {
      sb.append(" where (").append(where).append(") and (").append(keysetPredicate).append(')');
    } else if (where != null) {
      sb.append(" where ").append(where);
    } else if (keysetPredicate != null) {
      sb.append(" where ").append(keysetPredicate);
    }
    if (groupBy != null) {
      sb.append(" group by ").append(groupBy);
    }
    if (orderBy != null) {
      sb.append(" order by ").append(orderBy);
    }
    return sb.toString();
  }
}
