package io.shardwise.hibernate.resharding;

import java.util.List;

/**
 * A move's state as {@code status} finds it: the recorded workflow, the objects it created (checked
 * on the shards, so an orphan replication slot shows), and the target's catch-up lag.
 *
 * @param lagBytes the slot's confirmed position behind the source's WAL, or -1 when no slot exists
 * @param lagMillis the round trip of a marker row through replication, or -1 when not streaming
 * @param orphanSlots replication slots on the source or target that carry this move's names but no
 *     recorded purpose (cancel drops them too)
 */
public record ReshardStatus(ReshardWorkflow workflow, List<ReshardObject> objects, long lagBytes, long lagMillis,
    List<String> orphanSlots) {

  public ReshardStatus {
    objects = List.copyOf(objects);
    orphanSlots = List.copyOf(orphanSlots);
  }

  public String describe() {
    StringBuilder out = new StringBuilder(workflow.toString()).append('\n');
    if (!workflow.progress().isEmpty()) {
      for (ReshardWorkflow.TableProgress t : workflow.progress()) {
        out.append(String.format("  table %-30s %-16s %,d / %,d rows  replica identity: %s%n", t.table(), t.state(),
            t.rowsCopied(), t.rowsPlanned(), t.replicaIdentity()));
      }
    }
    if (lagBytes >= 0) {
      out.append("  catch-up lag: ").append(ReshardProgress.humanBytes(lagBytes))
          .append(lagMillis >= 0 ? " / " + lagMillis + " ms" : "").append('\n');
    }
    for (ReshardObject o : objects) {
      out.append(String.format("  %-6s %-16s %-48s %s%s%n", o.shard(), o.kind(), o.name(),
          o.exists() ? "present" : "gone", o.detail() == null ? "" : "  (" + o.detail() + ")"));
    }
    orphanSlots.forEach(s -> out.append("  orphan replication slot: ").append(s).append('\n'));
    if (workflow.lastError() != null) {
      out.append("  last error: ").append(workflow.lastError()).append('\n');
    }
    return out.toString();
  }
}
