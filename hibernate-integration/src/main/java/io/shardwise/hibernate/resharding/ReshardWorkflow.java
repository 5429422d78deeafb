package io.shardwise.hibernate.resharding;

import java.time.Instant;
import java.util.List;
import java.util.SortedSet;

/**
 * A move as the control database records it: enough to resume it from another process after a
 * crash, and to find every object it created.
 *
 * @param switchedFrom the phase a write switch started from (to return to if it is abandoned), or null
 * @param flipVersion the shard map version that gave the buckets to the target, or -1
 * @param flippedAt when the write switch happened, or null
 * @param lastError the last failure of a step, or null
 */
public record ReshardWorkflow(String id, String source, String target, SortedSet<Integer> buckets,
    List<ReshardTable> tables, ReshardPhase phase, ReshardPhase switchedFrom, String publication, String subscription,
    String slot, long lockKey, long flipVersion, Instant flippedAt, Instant createdAt, Instant updatedAt,
    String lastError, List<TableProgress> progress) {

  /**
   * The copy of one table.
   *
   * @param rowsPlanned rows of the moving buckets when the move started
   * @param rowsCopied rows copied so far (the planned count once the table's copy is done)
   * @param state {@code waiting}, {@code copying}, {@code copied} (streaming), or {@code reference-copied}
   * @param replicaIdentity what the move set for the row filter, e.g. {@code index shardwise_ri_...}, or
   *     {@code unchanged}
   */
  public record TableProgress(String table, long rowsPlanned, long rowsCopied, String state, String replicaIdentity) {}

  public ReshardWorkflow {
    tables = List.copyOf(tables);
    progress = List.copyOf(progress);
  }

  public long rowsPlanned() {
    return progress.stream().mapToLong(TableProgress::rowsPlanned).sum();
  }

  public long rowsCopied() {
    return progress.stream().mapToLong(TableProgress::rowsCopied).sum();
  }

  @Override
  public String toString() {
    return "move " + id + " [" + phase + "] " + buckets.size() + " bucket(s) " + BucketRanges.format(buckets) + " "
        + source + " -> " + target;
  }
}
