package io.shardwise.hibernate.resharding;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/** Bucket sets written as ranges ({@code 0-340,512,700-701}), for messages and the command line. */
public final class BucketRanges {
  private BucketRanges() {}

  /** {@code [0, 1, 2, 5]} as {@code 0-2,5}. */
  public static String format(Collection<Integer> buckets) {
    List<String> parts = new ArrayList<>();
    Integer start = null;
    Integer previous = null;
    for (int b : new TreeSet<>(buckets)) {
      if (previous != null && b == previous + 1) {
        previous = b;
        continue;
      }
      if (start != null) {
        parts.add(start.equals(previous) ? start.toString() : start + "-" + previous);
      }
      start = b;
      previous = b;
    }
    if (start != null) {
      parts.add(start.equals(previous) ? start.toString() : start + "-" + previous);
    }
    return String.join(",", parts);
  }

  /**
   * Parses {@code 0-340,512}.
   *
   * @throws IllegalArgumentException naming the part that is not a bucket or a range
   */
  public static SortedSet<Integer> parse(String text) {
    SortedSet<Integer> buckets = new TreeSet<>();
    for (String part : text.split(",")) {
      String p = part.trim();
      if (p.isEmpty()) {
        continue;
      }
      try {
        int dash = p.indexOf('-');
        int from = Integer.parseInt(dash < 0 ? p : p.substring(0, dash).trim());
        int to = dash < 0 ? from : Integer.parseInt(p.substring(dash + 1).trim());
        if (from < 0 || to < from) {
          throw new IllegalArgumentException("'" + p + "' in '" + text + "' is not a bucket range (from-to, from <= to)");
        }
        for (int b = from; b <= to; b++) {
          buckets.add(b);
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("'" + p + "' in '" + text + "' is not a bucket or a range such as 0-340", e);
      }
    }
    if (buckets.isEmpty()) {
      throw new IllegalArgumentException("'" + text + "' names no bucket; write e.g. 0-340,512");
    }
    return buckets;
  }
}
