package io.shardwise.hibernate.resharding;

import io.shardwise.hibernate.routing.ShardDescriptor;
import java.util.Collections;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * One move: these buckets, with every row of these tables in them, from one shard to another. An
 * empty table list means the tables of the entity model ({@code ShardedSessions.resharding()}).
 *
 * @param newTarget the target's descriptor when it is not in the shard map yet (adding a shard): the
 *     move creates its schema, copies the reference tables, then adds it to the map owning nothing
 *     until the write switch; null when the target is already a shard of the map
 */
public record ReshardRequest(String source, String target, SortedSet<Integer> buckets, List<ReshardTable> tables,
    ShardDescriptor newTarget) {

  public ReshardRequest {
    if (source == null || target == null || source.equals(target)) {
      throw new IllegalArgumentException("A move needs two different shards, was " + source + " -> " + target);
    }
    if (buckets == null || buckets.isEmpty()) {
      throw new IllegalArgumentException("A move from " + source + " to " + target + " needs at least one bucket");
    }
    tables = tables == null ? List.of() : tables;
    if (newTarget != null && !newTarget.id().equals(target)) {
      throw new IllegalArgumentException("The new target's descriptor is for shard '" + newTarget.id() + "', not '"
          + target + "'");
    }
    buckets = Collections.unmodifiableSortedSet(new TreeSet<>(buckets));
    tables = List.copyOf(tables);
  }

  /** Moves {@code buckets} from {@code source} to {@code target}, both shards of the map. */
  public static ReshardRequest move(String source, String target, java.util.Collection<Integer> buckets,
      List<ReshardTable> tables) {
    return new ReshardRequest(source, target, new TreeSet<>(buckets), tables, null);
  }

  /** The same move with other tables (the ones of the entity model, for instance). */
  public ReshardRequest withTables(List<ReshardTable> tables) {
    return new ReshardRequest(source, target, buckets, tables, newTarget);
  }
}
