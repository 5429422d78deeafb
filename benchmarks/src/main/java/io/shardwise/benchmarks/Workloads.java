package io.shardwise.benchmarks;

import io.shardwise.testkit.PostgresNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What the workload runners share: {@code key=value} arguments, latency percentiles and units, quiet
 * library logging, small reads of the servers, and writing their results into docs/benchmarks.md.
 * Latencies are collected in a {@link LongList}.
 */
final class Workloads {
  /** Kept strongly reachable: java.util.logging forgets the level of a logger it may collect. */
  private static final List<Logger> QUIET = new ArrayList<>();

  private Workloads() {}

  /** Hibernate, HikariCP and ShardingSphere log at INFO; a run's output shows only their warnings. */
  static synchronized void quietLibraries() {
    for (String name : List.of("org.hibernate", "com.zaxxer.hikari", "org.apache.shardingsphere")) {
      Logger logger = Logger.getLogger(name);
      logger.setLevel(Level.WARNING);
      QUIET.add(logger);
    }
  }

  /** Nanoseconds as milliseconds; NaN stays NaN (an empty percentile), a negative value becomes NaN. */
  static double ms(double nanos) {
    return nanos < 0 ? Double.NaN : nanos / 1e6;
  }

  /** Nearest-rank percentile of sorted values; NaN when there are none. */
  static double percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int index = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  /**
   * Puts {@code generated} (which starts with {@code begin} and ends with {@code end}) in place of
   * the block between those markers, or appends {@code section}, {@code intro} and the block at the
   * end of the file when the section is not there yet. Nothing else in the file changes, so notes
   * written by hand around the block survive a rerun.
   */
  static void writeSection(Path docs, String section, String begin, String end, String intro, String generated)
      throws IOException {
    String text = Files.readString(docs, StandardCharsets.UTF_8);
    int from = text.indexOf(begin);
    int to = text.indexOf(end);
    String updated;
    if (from >= 0 && to > from) {
      int after = to + end.length();
      if (generated.endsWith("\n") && after < text.length() && text.charAt(after) == '\n') {
        after++;
      }
      updated = text.substring(0, from) + generated + text.substring(after);
    } else if (text.contains(section + "\n")) {
      throw new IllegalStateException(docs + " has a section '" + section + "' without the markers " + begin
          + " ... " + end + ": put them where the results belong, or remove the section");
    } else {
      updated = text.stripTrailing() + "\n\n" + section + "\n\n" + (intro.isEmpty() ? "" : intro + "\n") + generated
          + (generated.endsWith("\n") ? "" : "\n");
    }
    Files.writeString(docs, updated, StandardCharsets.UTF_8);
  }

  /** {@code key=value} arguments in order; anything else is refused, naming the argument and the expected form. */
  static Map<String, String> keyValues(String[] args, String keys) {
    Map<String, String> values = new LinkedHashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("Arguments are key=value (" + keys + "); got '" + arg + "'");
      }
      values.put(arg.substring(0, eq).trim(), arg.substring(eq + 1).trim());
    }
    return values;
  }

  static int positive(String key, int value) {
    if (value <= 0) {
      throw new IllegalArgumentException(key + " must be positive, got " + value);
    }
    return value;
  }

  static int nonNegative(String key, int value) {
    if (value < 0) {
      throw new IllegalArgumentException(key + " must not be negative, got " + value);
    }
    return value;
  }

  /** The median of {@code metric} over {@code items} (the mean of the middle two for an even count); NaN when empty. */
  static <T> double median(List<T> items, java.util.function.ToDoubleFunction<T> metric) {
    double[] values = items.stream().mapToDouble(metric).sorted().toArray();
    int n = values.length;
    if (n == 0) {
      return Double.NaN;
    }
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  }

  /** The 1-minute load average from {@code /proc/loadavg}: the reports state how loaded the machine was. */
  static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException("Cannot read /proc/loadavg (the report states the load)", e);
    }
  }

  static long min(long[] values) {
    return Arrays.stream(values).min().orElse(0);
  }

  static long max(long[] values) {
    return Arrays.stream(values).max().orElse(0);
  }

  /** The first column of the first row of a count query, on a server. */
  static long count(PostgresNode node, String sql) throws SQLException {
    try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** {@code SHOW server_version}, or what went wrong asking it. */
  static String serverVersion(PostgresNode node) {
    try {
      try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SHOW server_version")) {
        rs.next();
        return rs.getString(1);
      }
    } catch (SQLException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }
}
