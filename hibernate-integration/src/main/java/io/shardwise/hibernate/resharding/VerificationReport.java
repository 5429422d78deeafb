package io.shardwise.hibernate.resharding;

import java.util.List;

/**
 * The result of comparing the moving buckets of every table on source and target: counts and an
 * order-independent checksum of every column per bucket, then, for buckets that differ, the rows.
 *
 * @param bucketsCompared (table, bucket) pairs compared
 * @param differences rows that differ while the source row stood still (a real difference)
 * @param unsettled rows that kept changing during every re-check (neither equal nor proven different)
 */
public record VerificationReport(String workflowId, int tables, long bucketsCompared, long rowsCompared,
    List<Difference> differences, List<Difference> unsettled) {

  /**
   * Rows of one bucket of one table that are not equal on both sides.
   *
   * @param keys the primary keys of the rows (as PostgreSQL prints a row of the key columns), at most 100
   * @param count how many rows differ in all
   */
  public record Difference(String table, int bucket, long count, List<String> keys) {}

  public VerificationReport {
    differences = List.copyOf(differences);
    unsettled = List.copyOf(unsettled);
  }

  /** Whether both sides hold the same rows in every moving bucket of every table. */
  public boolean equal() {
    return differences.isEmpty() && unsettled.isEmpty();
  }

  public String describe() {
    StringBuilder out = new StringBuilder(String.format("Verified %d table(s), %,d (table, bucket) pairs, %,d rows: ",
        tables, bucketsCompared, rowsCompared));
    out.append(equal() ? "source and target are equal" : differences.size() + " bucket(s) differ, " + unsettled.size()
        + " still changing");
    out.append('\n');
    for (Difference d : differences) {
      out.append("  differs: ").append(d.table()).append(" bucket ").append(d.bucket()).append(": ").append(d.count())
          .append(" row(s), keys ").append(d.keys()).append('\n');
    }
    for (Difference d : unsettled) {
      out.append("  changing: ").append(d.table()).append(" bucket ").append(d.bucket()).append(": ").append(d.count())
          .append(" row(s), keys ").append(d.keys()).append('\n');
    }
    return out.toString();
  }
}
