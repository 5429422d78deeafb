package io.shardwise.hibernate.routing;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Routes integral keys by explicit, contiguous ranges of their value: each {@link Range} is
 * half-open, {@code [lower, upper)}, and together they must tile one interval without gaps or
 * overlaps (checked at construction). Useful when the key has meaning, e.g. customer ids issued
 * per region, or to pin a known hot range to its own shard.
 *
 * <pre>{@code
 * new RangeStrategy(List.of(
 *     RangeStrategy.Range.of(0, 1_000_000, "eu-1"),
 *     RangeStrategy.Range.from(1_000_000, "eu-2")));     // 1,000,000 and above
 * }</pre>
 *
 * <p>A key outside every range is an error, not a guess. Only {@code short}, {@code int} and
 * {@code long} keys can be routed by range.
 */
public final class RangeStrategy implements ShardingStrategy {

  /**
   * The keys {@code lower <= key < upper} belong to {@code shardId}. An {@code upper} of
   * {@link Long#MAX_VALUE} with {@code unboundedAbove} set includes {@code Long.MAX_VALUE} itself.
   */
  public record Range(long lower, long upper, boolean unboundedAbove, String shardId) {
    public Range {
      if (shardId == null || shardId.isBlank()) {
        throw new IllegalArgumentException("Range [" + lower + ", " + upper + ") needs a shard id");
      }
      if (unboundedAbove && upper != Long.MAX_VALUE) {
        throw new IllegalArgumentException("An unbounded range has upper Long.MAX_VALUE, was " + upper);
      }
      if (!unboundedAbove && lower >= upper) {
        throw new IllegalArgumentException("Range [" + lower + ", " + upper + ") of shard '" + shardId
            + "' is empty; the lower bound is inclusive and the upper exclusive, so lower must be below upper");
      }
      shardId = shardId.intern();
    }

    /** {@code [lower, upper)}. */
    public static Range of(long lower, long upper, String shardId) {
      return new Range(lower, upper, false, shardId);
    }

    /** {@code [lower, +infinity)}. */
    public static Range from(long lower, String shardId) {
      return new Range(lower, Long.MAX_VALUE, true, shardId);
    }

    /** {@code [Long.MIN_VALUE, upper)}. */
    public static Range below(long upper, String shardId) {
      return new Range(Long.MIN_VALUE, upper, false, shardId);
    }

    boolean contains(long key) {
      return key >= lower && (key < upper || unboundedAbove);
    }

    @Override
    public String toString() {
      return "[" + lower + ", " + (unboundedAbove ? "+inf" : upper) + ") -> " + shardId;
    }
  }

  private final List<Range> ranges;
  private final long[] lowers;
  private final String[] owners;
  private final Range last;
  private final List<String> shards;

  /**
   * @param ranges in any order; sorted here
   * @throws IllegalArgumentException on an empty list, a gap or an overlap, naming the two ranges
   */
  public RangeStrategy(Collection<Range> ranges) {
    if (ranges.isEmpty()) {
      throw new IllegalArgumentException("A range strategy needs at least one range");
    }
    List<Range> sorted = new ArrayList<>(ranges);
    sorted.sort(Comparator.comparingLong(Range::lower));
    for (int i = 1; i < sorted.size(); i++) {
      Range prev = sorted.get(i - 1);
      Range next = sorted.get(i);
      if (prev.unboundedAbove() || prev.upper() > next.lower()) {
        throw new IllegalArgumentException("Ranges " + prev + " and " + next
            + " overlap; make each upper bound (exclusive) equal the next range's lower bound");
      }
      if (prev.upper() < next.lower()) {
        throw new IllegalArgumentException("Ranges " + prev + " and " + next + " leave the keys ["
            + prev.upper() + ", " + next.lower() + ") unassigned; extend one of them so that " + prev.upper()
            + " is the lower bound of the next range");
      }
    }
    this.ranges = List.copyOf(sorted);
    this.lowers = sorted.stream().mapToLong(Range::lower).toArray();
    this.owners = sorted.stream().map(Range::shardId).toArray(String[]::new);
    this.last = sorted.get(sorted.size() - 1);
    this.shards = List.copyOf(new LinkedHashSet<>(List.of(owners)));
  }

  @Override
  public String shardFor(long key) {
    int i = java.util.Arrays.binarySearch(lowers, key);
    if (i < 0) {
      i = -i - 2; // the last range starting below the key
    }
    if (i < 0 || i == lowers.length - 1 && !last.contains(key)) {
      throw new IllegalArgumentException("Key " + key + " is outside every range (" + lowers[0] + " to "
          + (last.unboundedAbove() ? "+inf" : last.upper() + " exclusive")
          + "); add a range that covers it");
    }
    return owners[i];
  }

  @Override
  public String shardFor(Object key) {
    if (key instanceof Long || key instanceof Integer || key instanceof Short) {
      return shardFor(((Number) key).longValue());
    }
    if (key instanceof String || key instanceof java.util.UUID) {
      throw new IllegalArgumentException("The range strategy routes short, int and long keys only, not "
          + key.getClass().getSimpleName() + " '" + key + "'; use the bucket or directory strategy for this entity");
    }
    throw ShardKeyType.unsupportedKey(key);
  }

  @Override
  public Collection<String> shards() {
    return shards;
  }

  /** The ranges, sorted by lower bound. */
  public List<Range> ranges() {
    return ranges;
  }

  @Override
  public String toString() {
    return "RangeStrategy" + ranges;
  }
}
