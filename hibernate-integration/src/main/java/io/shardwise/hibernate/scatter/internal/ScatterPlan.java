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
 * @param having the query's HAVING, evaluated over merged groups (the shards return every partial
 *     group, unfiltered); null when there is none
 * @param sharded the FROM clause's sharded entities (roots and joins), each with its alias: while
 *     buckets move, each shard's rows of them are filtered to the buckets that shard serves reads of
 * @param outerJoin null, or why the query cannot be filtered that way (an outer join would keep a
 *     row whose joined copy is filtered out, or pull a copy in): refused while buckets move
 * @param fetchJoin the FROM clause fetches a join ({@code join fetch}): Hibernate may apply a row
 *     limit to such a query in memory, after reading every row, so no shard's part is cut short by one
 */
public record ScatterPlan(Shape shape, String select, String from, String where, String groupBy, String orderBy,
    List<Column> columns, List<Slot> slots, int selectionCount, List<SortKey> sortKeys, List<String> sortKeyHql,
    long limit, long offset, boolean oneShard, Condition having, List<ShardedFrom> sharded, String outerJoin,
    boolean fetchJoin) {

  /** A sharded entity of the FROM clause, as the shard HQL names it. */
  public record ShardedFrom(String alias, Class<?> javaType) {}

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

  /**
   * How a column's values from different shards combine into one (for AGGREGATE and GROUPED).
   * {@code DISTINCT} is the argument of a distinct aggregate ({@code count(distinct x)}): every
   * shard also groups by it, so that it returns each distinct value once per group, and the merge
   * collects the values of a group from all shards into one set, on which the aggregate is taken.
   * (The other aggregates of the query stay exact: counts and sums of the finer groups add up.)
   */
  public enum Merge { KEY, COUNT, SUM, MIN, MAX, DISTINCT }

  /**
   * One column of the shards' rows. {@code enumAsText}: its values are enums stored as text
   * ({@code EnumType.STRING}), which the database orders by name, so the merge does too (an enum
   * stored by ordinal is ordered by ordinal, as {@link Enum#compareTo} does).
   */
  public record Column(String hql, Merge merge, boolean enumAsText) {
    public Column(String hql, Merge merge) {
      this(hql, merge, false);
    }
  }

  /** The aggregate a slot takes over the set of a {@link Merge#DISTINCT} column. */
  public enum OverDistinct { COUNT, SUM, AVG }

  /**
   * A final value: column {@code column}, divided by column {@code countColumn} when that is not -1
   * (AVG); or, when {@code overDistinct} is set, that aggregate over the set of values the
   * {@link Merge#DISTINCT} column {@code column} collected.
   */
  public record Slot(int column, int countColumn, OverDistinct overDistinct) {
    public Slot(int column, int countColumn) {
      this(column, countColumn, null);
    }

    public boolean isAverage() {
      return countColumn >= 0;
    }
  }

  // ---- HAVING, as data ------------------------------------------------------------------------

  /** A HAVING condition over final slots, with SQL's three-valued logic (null is unknown). */
  public sealed interface Condition permits Compare, Junction, Not, IsNull {}

  /** {@code left op right}; {@code op} is one of {@code = <> < <= > >=}. */
  public record Compare(Operand left, String op, Operand right) implements Condition {}

  /** AND ({@code and} true) or OR of its parts. */
  public record Junction(boolean and, List<Condition> parts) implements Condition {}

  public record Not(Condition condition) implements Condition {}

  public record IsNull(Operand operand, boolean negated) implements Condition {}

  /** A value in a HAVING condition. */
  public sealed interface Operand permits SlotValue, Constant, NamedParameter, PositionalParameter {}

  /** The merged value of a slot: an aggregate or a grouping key. */
  public record SlotValue(int slot) implements Operand {}

  public record Constant(Object value) implements Operand {}

  public record NamedParameter(String name) implements Operand {}

  public record PositionalParameter(int position) implements Operand {}

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
    return shardHql(keysetPredicate, null);
  }

  /**
   * The HQL one shard runs: {@link #shardHql(String)} with {@code bucketFilter}, when not null,
   * AND-ed to the WHERE clause as well (the buckets this shard must not be read for during a move).
   */
  public String shardHql(String keysetPredicate, String bucketFilter) {
    StringBuilder sb = new StringBuilder(select).append(' ').append(from);
    List<String> conditions = new java.util.ArrayList<>(3);
    for (String condition : new String[] {where, keysetPredicate, bucketFilter}) {
      if (condition != null) {
        conditions.add(condition);
      }
    }
    if (conditions.size() == 1) {
      sb.append(" where ").append(conditions.get(0));
    } else if (!conditions.isEmpty()) {
      sb.append(" where (").append(String.join(") and (", conditions)).append(')');
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
