package io.shardwise.hibernate.scatter.internal;

import io.shardwise.hibernate.scatter.UnsupportedScatterQueryException;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.Column;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.Merge;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.Slot;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.SortKey;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * Merges per-shard rows (laid out as {@link ScatterPlan#columns()}) into final rows (laid out as
 * {@link ScatterPlan#slots()}), then applies OFFSET and LIMIT.
 *
 * <p>Ordered plain rows are merged by a k-way merge: a priority queue holds the head row of each
 * shard's (already sorted) list, and the merge stops as soon as offset + limit rows are out, so
 * the work is proportional to the page, not to what the shards returned. Aggregates are folded
 * column by column: counts and sums add up, minimums and maximums compare, an average is its
 * summed sum over its summed count. Values are compared with their natural Java order, which is
 * PostgreSQL's for numbers, dates and times, and for text under the "C" collation; an enum stored as
 * text ({@link ScatterPlan.Column#enumAsText}) by its name, as the database compares the text.
 */
public final class ScatterMerge {
  private ScatterMerge() {}

  /**
   * @param perShard each shard's rows, in shard order
   * @param offset rows to skip after merging
   * @param limit rows to return at most, or -1
   */
  public static List<Object[]> merge(ScatterPlan plan, List<List<Object[]>> perShard, long offset, long limit) {
    return merge(plan, perShard, offset, limit, Map.of(), Map.of());
  }

  /**
   * @param named the query's named parameters, for its HAVING
   * @param positional the query's positional parameters, for its HAVING
   */
  public static List<Object[]> merge(ScatterPlan plan, List<List<Object[]>> perShard, long offset, long limit,
      Map<String, Object> named, Map<Integer, Object> positional) {
    return switch (plan.shape()) {
      case ROWS -> cut(stream(plan, perShard), offset, limit, false);
      case DISTINCT_ROWS -> cut(stream(plan, perShard), offset, limit, true);
      case AGGREGATE, GROUPED -> {
        List<Object[]> groups = regroup(plan, perShard);
        if (plan.having() != null) {
          groups.removeIf(row -> !Boolean.TRUE.equals(holds(plan.having(), row, named, positional)));
        }
        if (!plan.sortKeys().isEmpty()) {
          groups.sort(comparator(plan));
        }
        yield cut(groups.iterator(), offset, limit, false);
      }
    };
  }

  /**
   * Plain ordered rows ({@link ScatterPlan.Shape#ROWS} with an ORDER BY) merged from per-shard
   * iterators that produce each row only when asked: the merge takes the head of every shard, then
   * one row more from the shard whose row it gave out, and only when it needs the next — so a page
   * of offset + limit rows over k shards takes at most offset + limit + k - 1 rows from them.
   */
  public static List<Object[]> mergeOrdered(ScatterPlan plan, List<Iterator<Object[]>> perShard, long offset,
      long limit) {
    if (plan.shape() != ScatterPlan.Shape.ROWS || plan.sortKeys().isEmpty()) {
      throw new IllegalArgumentException("mergeOrdered needs plain ordered rows, not a " + plan.shape() + " plan"
          + (plan.sortKeys().isEmpty() ? " without ORDER BY" : ""));
    }
    return cut(new KWayMerge(perShard, comparator(plan), true), offset, limit, false);
  }

  /** The rows of all shards in the plan's order: a k-way merge when it has one, else concatenated. */
  private static Iterator<Object[]> stream(ScatterPlan plan, List<List<Object[]>> perShard) {
    if (plan.sortKeys().isEmpty()) {
      return perShard.stream().flatMap(List::stream).iterator();
    }
    return new KWayMerge(perShard.stream().map(List::iterator).toList(), comparator(plan), false);
  }

  private static List<Object[]> cut(Iterator<Object[]> rows, long offset, long limit, boolean distinct) {
    List<Object[]> out = new ArrayList<>();
    Set<List<Object>> seen = distinct ? new HashSet<>() : null;
    long skipped = 0;
    // the limit first: a lazy merge must not be asked for a row past the page
    while ((limit < 0 || out.size() < limit) && rows.hasNext()) {
      Object[] row = rows.next();
      if (seen != null && !seen.add(key(row, row.length))) {
        continue;
      }
      if (skipped < offset) {
        skipped++;
        continue;
      }
      out.add(row);
    }
    return out;
  }

  /**
   * Streams the merged order of several sorted sequences, holding one head row per sequence. When
   * {@code lazyRefill} is set, the shard whose row was given out is asked for its next one only when
   * the merge's own next row is asked for, not at once: a caller that stops after n rows has taken
   * n + k - 1 rows from k sequences, not n + k.
   */
  static final class KWayMerge implements Iterator<Object[]> {
    private record Head(Object[] row, int shard, Iterator<Object[]> rest) {}

    private final PriorityQueue<Head> heads;
    private final boolean lazyRefill;
    /** The sequence whose head was given out last and not yet replaced (lazy refill only), or null. */
    private Head given;

    KWayMerge(List<Iterator<Object[]>> sorted, Comparator<Object[]> order, boolean lazyRefill) {
      this.lazyRefill = lazyRefill;
      // ties go to the lower shard index, so the merge is deterministic
      heads = new PriorityQueue<>(Math.max(1, sorted.size()),
          Comparator.comparing(Head::row, order).thenComparingInt(Head::shard));
      for (int i = 0; i < sorted.size(); i++) {
        Iterator<Object[]> it = sorted.get(i);
        if (it.hasNext()) {
          heads.add(new Head(it.next(), i, it));
        }
      }
    }

    @Override
    public boolean hasNext() {
      refill();
      return !heads.isEmpty();
    }

    @Override
    public Object[] next() {
      refill();
      Head head = heads.poll();
      if (head == null) {
        throw new java.util.NoSuchElementException();
      }
      given = head;
      if (!lazyRefill) {
        refill();
      }
      return head.row();
    }

    private void refill() {
      Head head = given;
      if (head != null) {
        given = null;
        if (head.rest().hasNext()) {
          heads.add(new Head(head.rest().next(), head.shard(), head.rest()));
        }
      }
    }
  }

  // ---- aggregates ----------------------------------------------------------------------------

  private static List<Object[]> regroup(ScatterPlan plan, List<List<Object[]>> perShard) {
    List<Column> columns = plan.columns();
    int[] keyColumns = columns.stream().filter(c -> c.merge() == Merge.KEY).mapToInt(columns::indexOf).toArray();
    Map<List<Object>, Object[]> groups = new LinkedHashMap<>();
    for (List<Object[]> rows : perShard) {
      for (Object[] row : rows) {
        List<Object> key = new ArrayList<>(keyColumns.length);
        for (int k : keyColumns) {
          key.add(normalize(row[k]));
        }
        Object[] acc = groups.get(key);
        if (acc == null) {
          acc = row.clone();
          for (int c = 0; c < columns.size(); c++) {
            if (columns.get(c).merge() == Merge.DISTINCT) {
              acc[c] = new HashSet<>();
              collect(acc[c], row[c]);
            }
          }
          groups.put(key, acc);
          continue;
        }
        for (int c = 0; c < columns.size(); c++) {
          if (columns.get(c).merge() == Merge.DISTINCT) {
            collect(acc[c], row[c]);
          } else {
            acc[c] = combine(columns.get(c), acc[c], row[c]);
          }
        }
      }
    }
    if (groups.isEmpty() && plan.shape() == ScatterPlan.Shape.AGGREGATE) {
      // no shard answered: the aggregate of nothing (count 0, the rest null)
      Object[] empty = new Object[columns.size()];
      for (int c = 0; c < empty.length; c++) {
        Merge merge = columns.get(c).merge();
        empty[c] = merge == Merge.COUNT ? 0L : merge == Merge.DISTINCT ? new HashSet<>() : null;
      }
      groups.put(List.of(), empty);
    }
    List<Object[]> out = new ArrayList<>(groups.size());
    for (Object[] acc : groups.values()) {
      Object[] row = new Object[plan.slots().size()];
      for (int s = 0; s < row.length; s++) {
        Slot slot = plan.slots().get(s);
        row[s] = slot.overDistinct() != null ? overDistinct(slot.overDistinct(), (Set<?>) acc[slot.column()])
            : slot.isAverage() ? average(acc[slot.column()], acc[slot.countColumn()])
            : acc[slot.column()];
      }
      out.add(row);
    }
    return out;
  }

  /** Adds a value of a distinct aggregate's argument to its group's set; SQL's aggregates skip null. */
  @SuppressWarnings("unchecked")
  private static void collect(Object set, Object value) {
    if (value != null) {
      ((Set<Object>) set).add(normalize(value));
    }
  }

  private static Object overDistinct(ScatterPlan.OverDistinct aggregate, Set<?> values) {
    if (aggregate == ScatterPlan.OverDistinct.COUNT) {
      return (long) values.size();
    }
    Number sum = null;
    for (Object value : values) {
      sum = sum == null ? (Number) value : add(sum, (Number) value);
    }
    return aggregate == ScatterPlan.OverDistinct.SUM ? sum : average(sum, values.size());
  }

  private static Object combine(ScatterPlan.Column column, Object a, Object b) {
    Merge merge = column.merge();
    if (merge == Merge.KEY || merge == Merge.DISTINCT) {
      return a;
    }
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return switch (merge) {
      case COUNT, SUM -> add((Number) a, (Number) b);
      case MIN -> compare(a, b, column.enumAsText()) <= 0 ? a : b;
      case MAX -> compare(a, b, column.enumAsText()) >= 0 ? a : b;
      case KEY, DISTINCT -> a;
    };
  }

  private static Number add(Number a, Number b) {
    if (a instanceof BigDecimal x) {
      return x.add((BigDecimal) b);
    }
    if (a instanceof BigInteger x) {
      return x.add((BigInteger) b);
    }
    if (a instanceof Double || a instanceof Float) {
      return a.doubleValue() + b.doubleValue();
    }
    if (a instanceof Integer && b instanceof Integer) {
      return Math.addExact(a.intValue(), b.intValue());
    }
    return Math.addExact(a.longValue(), b.longValue());
  }

  private static Double average(Object sum, Object count) {
    long n = count == null ? 0 : ((Number) count).longValue();
    if (n == 0 || sum == null) {
      return null;
    }
    if (sum instanceof BigDecimal d) {
      return d.divide(BigDecimal.valueOf(n), java.math.MathContext.DECIMAL128).doubleValue();
    }
    if (sum instanceof BigInteger i) {
      return new BigDecimal(i).divide(BigDecimal.valueOf(n), java.math.MathContext.DECIMAL128).doubleValue();
    }
    return ((Number) sum).doubleValue() / n;
  }

  // ---- HAVING --------------------------------------------------------------------------------

  /** SQL's three-valued truth of a HAVING condition over a merged row: TRUE, FALSE, or null for unknown. */
  private static Boolean holds(ScatterPlan.Condition condition, Object[] row, Map<String, Object> named,
      Map<Integer, Object> positional) {
    if (condition instanceof ScatterPlan.Not not) {
      Boolean inner = holds(not.condition(), row, named, positional);
      return inner == null ? null : !inner;
    }
    if (condition instanceof ScatterPlan.Junction junction) {
      boolean unknown = false;
      for (ScatterPlan.Condition part : junction.parts()) {
        Boolean value = holds(part, row, named, positional);
        if (value == null) {
          unknown = true;
        } else if (value != junction.and()) {
          return value; // false decides an AND, true decides an OR
        }
      }
      return unknown ? null : junction.and();
    }
    if (condition instanceof ScatterPlan.IsNull isNull) {
      return (value(isNull.operand(), row, named, positional) == null) != isNull.negated();
    }
    ScatterPlan.Compare compare = (ScatterPlan.Compare) condition;
    Object a = value(compare.left(), row, named, positional);
    Object b = value(compare.right(), row, named, positional);
    if (a == null || b == null) {
      return null;
    }
    int c = compare(a, b);
    return switch (compare.op()) {
      case "=" -> c == 0;
      case "<>", "!=" -> c != 0;
      case "<" -> c < 0;
      case "<=" -> c <= 0;
      case ">" -> c > 0;
      case ">=" -> c >= 0;
      default -> throw new IllegalStateException("comparison " + compare.op());
    };
  }

  private static Object value(ScatterPlan.Operand operand, Object[] row, Map<String, Object> named,
      Map<Integer, Object> positional) {
    if (operand instanceof ScatterPlan.SlotValue slot) {
      return row[slot.slot()];
    }
    if (operand instanceof ScatterPlan.Constant constant) {
      return constant.value();
    }
    if (operand instanceof ScatterPlan.NamedParameter parameter) {
      if (!named.containsKey(parameter.name())) {
        throw new IllegalArgumentException("The HAVING clause uses parameter :" + parameter.name()
            + ", which is not set: setParameter(\"" + parameter.name() + "\", value)");
      }
      return named.get(parameter.name());
    }
    int position = ((ScatterPlan.PositionalParameter) operand).position();
    if (!positional.containsKey(position)) {
      throw new IllegalArgumentException("The HAVING clause uses parameter ?" + position
          + ", which is not set: setParameter(" + position + ", value)");
    }
    return positional.get(position);
  }

  // ---- order ---------------------------------------------------------------------------------

  /** The ORDER BY of {@code plan} over its final rows. */
  static Comparator<Object[]> comparator(ScatterPlan plan) {
    List<SortKey> keys = plan.sortKeys();
    boolean[] enumAsText = new boolean[keys.size()];
    for (int i = 0; i < enumAsText.length; i++) {
      enumAsText[i] = plan.columns().get(plan.slots().get(keys.get(i).slot()).column()).enumAsText();
    }
    return (x, y) -> {
      for (int k = 0; k < enumAsText.length; k++) {
        SortKey key = keys.get(k);
        Object a = x[key.slot()];
        Object b = y[key.slot()];
        int c;
        if (a == null || b == null) {
          c = a == b ? 0 : (a == null) == key.nullsFirst() ? -1 : 1;
        } else {
          c = compare(a, b, enumAsText[k]);
          if (key.descending()) {
            c = -c;
          }
        }
        if (c != 0) {
          return c;
        }
      }
      return 0;
    };
  }

  /**
   * {@code a} against {@code b} as the database orders them; {@code enumAsText}: enums stored as
   * text, which it orders by name (as text, under the "C" collation), not by ordinal.
   */
  private static int compare(Object a, Object b, boolean enumAsText) {
    if (enumAsText && a instanceof Enum<?> x && b instanceof Enum<?> y) {
      return x.name().compareTo(y.name());
    }
    return compare(a, b);
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static int compare(Object a, Object b) {
    if (a instanceof Comparable ca && a.getClass() == b.getClass()) {
      return ca.compareTo(b);
    }
    if (a instanceof Number x && b instanceof Number y) {
      return new BigDecimal(x.toString()).compareTo(new BigDecimal(y.toString()));
    }
    throw new UnsupportedScatterQueryException("Scatter-gather cannot compare values of " + a.getClass().getName()
        + " and " + b.getClass().getName() + " in memory. Instead: order by, or take min/max of, a basic attribute"
        + " (number, text, date or time), not an entity or embeddable.");
  }

  /** A value as a key for equality: numbers of equal value are equal whatever their scale. */
  private static Object normalize(Object value) {
    if (value instanceof BigDecimal d) {
      return d.signum() == 0 ? BigDecimal.ZERO : d.stripTrailingZeros();
    }
    if (value instanceof byte[] bytes) {
      return Arrays.toString(bytes);
    }
    return value;
  }

  private static List<Object> key(Object[] row, int length) {
    List<Object> key = new ArrayList<>(length);
    for (int i = 0; i < length; i++) {
      key.add(normalize(row[i]));
    }
    return key;
  }
}
