package io.shardwise.hibernate.resharding;

import java.util.List;

/**
 * What a move would do, computed without changing anything: the buckets, and for every table its
 * rows and bytes in those buckets on the source, and the replica identity the move would use.
 */
public record ReshardPlan(ReshardRequest request, List<TablePlan> tables, List<String> warnings) {

  /**
   * @param rows rows of the moving buckets (sharded) or of the whole table (reference)
   * @param bytes their size as stored ({@code pg_column_size} of each row)
   * @param replicaIdentity the replica identity the move sets for its row filter, or "unchanged"
   * @param estimated whether rows and bytes were sampled ({@code TABLESAMPLE}) rather than counted
   */
  public record TablePlan(String table, boolean reference, long rows, long bytes, String replicaIdentity,
      boolean estimated) {}

  public ReshardPlan {
    tables = List.copyOf(tables);
    warnings = List.copyOf(warnings);
  }

  public long rows() {
    return tables.stream().filter(t -> !t.reference()).mapToLong(TablePlan::rows).sum();
  }

  public long bytes() {
    return tables.stream().filter(t -> !t.reference()).mapToLong(TablePlan::bytes).sum();
  }

  /** A human-readable summary, as the command line prints it. */
  public String describe() {
    StringBuilder out = new StringBuilder();
    out.append("Move ").append(request.buckets().size()).append(" bucket(s) ").append(BucketRanges.format(request.buckets()))
        .append(" from shard '").append(request.source()).append("' to shard '").append(request.target()).append("'")
        .append(request.newTarget() != null ? " (a new shard, added to the map by the move)" : "").append('\n');
    for (TablePlan t : tables) {
      out.append(String.format("  %-32s %-9s %,12d rows %,14d bytes%s  replica identity: %s%n", t.table(),
          t.reference() ? "reference" : "sharded", t.rows(), t.bytes(), t.estimated() ? " (sampled)" : "",
          t.replicaIdentity()));
    }
    out.append(String.format("  total (sharded tables)                     %,12d rows %,14d bytes%n", rows(), bytes()));
    warnings.forEach(w -> out.append("  warning: ").append(w).append('\n'));
    return out.toString();
  }
}
