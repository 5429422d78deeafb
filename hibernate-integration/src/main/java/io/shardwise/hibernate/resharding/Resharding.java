package io.shardwise.hibernate.resharding;

import io.shardwise.hibernate.routing.ShardDescriptor;
import java.util.List;
import java.util.function.Consumer;

/**
 * Online moves of buckets between shards, each a resumable workflow recorded in the control
 * database. Obtain one with {@code ShardedSessions.resharding()} (tables taken from the entity
 * model) or {@code Shardwise.resharding(settings)} (tables named in each request; the command line's way).
 *
 * <pre>{@code
 * Resharding moves = shards.resharding();
 * ReshardRequest move = moves.planAddShard(ShardDescriptor.of("s3", url)).get(0);
 * System.out.println(moves.plan(move).describe());               // changes nothing
 * ReshardWorkflow w = moves.start(move, p -> System.out.println(p.bar(30)));  // copy, catch up, verify
 * moves.switchReads(w.id());
 * SwitchResult r = moves.switchWrites(w.id());                   // pause bounded by pause_limit_ms
 * moves.complete(w.id(), p -> {});                               // delete moved rows at the source, clean up
 * }</pre>
 *
 * <p>Phases and guarantees: docs/resharding.md.
 */
public interface Resharding {

  /** What {@code request} would move (rows and bytes per table, replica identities); changes nothing. */
  ReshardPlan plan(ReshardRequest request);

  /**
   * Moves proposed for adding {@code newShard}: its fair share of the buckets by weight, taken from
   * the shards with the most, one request per donor ({@link io.shardwise.hibernate.routing.ShardMap#withShardAdded}).
   */
  List<ReshardRequest> planAddShard(ShardDescriptor newShard);

  /** Moves proposed for draining {@code shardId}: its buckets spread over the other shards by weight. */
  List<ReshardRequest> planDrain(String shardId);

  /**
   * Records the move, sets it up and runs it to {@link ReshardPhase#VERIFIED}: target schema,
   * reference tables, replica identities, fences, publication and subscription; waits for the copy
   * and the catch-up; verifies. Returns the workflow in {@code VERIFIED}, or in {@code CATCHING_UP}
   * when verification found differences ({@link #verify} again after fixing them).
   */
  ReshardWorkflow start(ReshardRequest request, Consumer<ReshardProgress> progress);

  /** Continues a move from its recorded phase (after a crash of the process that ran it) up to {@code VERIFIED}. */
  ReshardWorkflow resume(String workflowId, Consumer<ReshardProgress> progress);

  /** Compares source and target bucket by bucket; records the result; the write switch needs an equal one. */
  VerificationReport verify(String workflowId, Consumer<ReshardProgress> progress);

  /** Reads of the moving buckets go to the target from the next session on; writes stay on the source. */
  ReshardWorkflow switchReads(String workflowId);

  /**
   * Hands the buckets to the target with writes paused at most {@code shardwise.reshard.pause_limit_ms};
   * abandons the switch (writes go on at the source) when that is not enough.
   */
  SwitchResult switchWrites(String workflowId);

  /**
   * Undoes the read switch (reads return to the source at once); after the write switch, undoes it
   * too ({@link #rollbackWrites}) and fails with a {@link ReshardingException} if that was abandoned.
   * Either way the move is back in {@code VERIFIED}: switch again, or cancel.
   */
  ReshardWorkflow rollback(String workflowId);

  /**
   * After the write switch: hands the buckets back to the source, with their writes paused at most
   * {@code shardwise.reshard.pause_limit_ms}, once the source has applied every write the target
   * accepted (reverse replication). Abandoned (writes go on at the target) when the limit is not
   * enough; the move is then still in {@code WRITES_SWITCHED}.
   */
  SwitchResult rollbackWrites(String workflowId);

  /**
   * Deletes the moved rows from the source in batches and drops everything the move created,
   * reverse replication included.
   */
  ReshardWorkflow complete(String workflowId, Consumer<ReshardProgress> progress);

  /**
   * Abandons a move: drops everything it created, incl. replication slots, and the target's copy.
   * After the write switch it first rolls the writes back to the source (as {@link #rollbackWrites})
   * and fails, changing nothing, if that was abandoned.
   */
  ReshardWorkflow cancel(String workflowId);

  /** The move's record, the objects it created (checked on the shards) and its catch-up lag. */
  ReshardStatus status(String workflowId);

  /** Every move the control database knows, newest first. */
  List<ReshardWorkflow> workflows();
}
