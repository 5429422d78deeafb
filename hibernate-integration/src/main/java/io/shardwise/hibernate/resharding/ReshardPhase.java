package io.shardwise.hibernate.resharding;

/**
 * Where a move stands. A move goes forward through the phases in this order; {@code cancel} leaves
 * any phase for {@link #CANCELLED} until {@link #COMPLETING} (after the write switch it first rolls
 * the writes back), {@code rollback} returns from {@link #READS_SWITCHED} or {@link #WRITES_SWITCHED}
 * to {@link #VERIFIED}.
 */
public enum ReshardPhase {
  /** Recorded in the control database; nothing created on a shard yet. */
  CREATED,
  /** Schema, fences, replica identity, publication and subscription are set up; the target copies the rows. */
  COPYING,
  /** The copy is done; the target applies the source's changes as they happen. */
  CATCHING_UP,
  /** Every moving bucket of every table is equal on both sides (counts and checksums); reads and writes still on the source. */
  VERIFIED,
  /** Reads of the moving buckets are served by the target; writes still go to the source. */
  READS_SWITCHED,
  /** A write switch was under way when the mover stopped; {@code resume} finishes or undoes it. */
  SWITCHING_WRITES,
  /**
   * The target owns the buckets; the source refuses writes to them; its copies stay until {@code complete}
   * and receive the target's writes by reverse replication, so that {@code rollback} loses nothing.
   */
  WRITES_SWITCHED,
  /** A rollback of the write switch was under way when the mover stopped; {@code resume} finishes or undoes it. */
  ROLLING_BACK_WRITES,
  /** {@code complete} is deleting the moved rows from the source and dropping what the move created. */
  COMPLETING,
  /** Done: the rows live on the target only; nothing the move created is left. */
  COMPLETED,
  /** {@code cancel} is removing what the move created. */
  CANCELLING,
  /** Cancelled: the buckets stay on the source; nothing the move created is left. */
  CANCELLED;

  /** Whether the workflow is over (completed or cancelled). */
  public boolean isTerminal() {
    return this == COMPLETED || this == CANCELLED;
  }
}
