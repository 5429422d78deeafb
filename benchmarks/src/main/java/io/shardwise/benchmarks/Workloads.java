package io.shardwise.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the workload runners share: latency percentiles and writing their results into docs/benchmarks.md. */
final class Workloads {
  private Workloads() {}

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
}
