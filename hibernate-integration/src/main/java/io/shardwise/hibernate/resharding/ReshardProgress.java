package io.shardwise.hibernate.resharding;

/**
 * A progress report of a running step, sent a few times a second: what a progress bar shows.
 *
 * @param step what runs now, e.g. {@code copy}, {@code catch-up}, {@code verify}, {@code delete}
 * @param done units done (rows copied, buckets verified, rows deleted)
 * @param total units in all, or -1 when unknown
 * @param perSecond the rate over the last report interval
 * @param lagBytes how far the target's apply is behind the source (WAL bytes), or -1
 * @param lagMillis the same in time (a marker's round trip), or -1
 * @param message what just happened, e.g. the replica identity chosen for a table; may be null
 */
public record ReshardProgress(String workflowId, ReshardPhase phase, String step, long done, long total,
    double perSecond, long lagBytes, long lagMillis, String message) {

  /** Seconds to go at the current rate, or -1 when it cannot be told. */
  public long etaSeconds() {
    if (total < 0 || perSecond <= 0) {
      return -1;
    }
    return (long) Math.ceil(Math.max(0, total - done) / perSecond);
  }

  /** A one-line progress bar: {@code copy [######....] 61% 12,000/19,600 rows 8,000/s ETA 1s lag 0 B / 3 ms}. */
  public String bar(int width) {
    StringBuilder out = new StringBuilder(step).append(' ');
    if (total > 0) {
      int filled = (int) Math.min(width, done * width / total);
      out.append('[').append("#".repeat(filled)).append(".".repeat(width - filled)).append("] ")
          .append(String.format("%3d%% %,d/%,d", done * 100 / total, done, total));
    } else {
      out.append(String.format("%,d", done));
    }
    if (perSecond > 0) {
      out.append(String.format(" %,.0f/s", perSecond));
    }
    long eta = etaSeconds();
    if (eta >= 0 && total > 0 && done < total) {
      out.append(String.format(" ETA %d:%02d", eta / 60, eta % 60));
    }
    if (lagBytes >= 0) {
      out.append(" lag ").append(humanBytes(lagBytes));
      if (lagMillis >= 0) {
        out.append(" / ").append(lagMillis).append(" ms");
      }
    }
    return out.toString();
  }

  static String humanBytes(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    if (bytes < 1024 * 1024) {
      return String.format("%.1f KiB", bytes / 1024.0);
    }
    return String.format("%.1f MiB", bytes / (1024.0 * 1024));
  }
}
