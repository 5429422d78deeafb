package io.shardwise.hibernate.routing.internal;

import io.shardwise.hibernate.ShardUnavailableException;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardState;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Chooses the shard of each new root (an entity whose shard key is its generated id): a smooth
 * weighted round robin over the {@link ShardState#ACTIVE} shards of the router's current map that
 * own at least one bucket. READ_ONLY and OFFLINE shards are never chosen, nor a shard that owns no
 * bucket (no id could route to it).
 *
 * <p>Smooth weighted round robin (as in nginx): every pick adds each candidate's weight to its
 * counter, takes the candidate with the largest counter and subtracts the total weight from it.
 * Over every run of {@code total weight} picks each shard is chosen exactly {@code weight} times,
 * interleaved rather than in bursts (weights 1, 1, 2 pick a, c, b, c, a, c, b, c ...). The counters
 * start afresh when the map changes. One instance per session factory; picks are serialized by a
 * lock held for a few array operations.
 */
public final class NewRootPlacement {
  private final Router router;
  private final String unitName;
  private ShardMap map;
  private String[] candidates = new String[0];
  private int[] weights = new int[0];
  private long[] counters = new long[0];
  private long totalWeight;

  public NewRootPlacement(Router router, String unitName) {
    this.router = router;
    this.unitName = unitName;
  }

  /**
   * The shard for the next new root.
   *
   * @throws ShardUnavailableException when no shard of the current map is ACTIVE and owns a bucket
   */
  public synchronized String next() {
    ShardMap current = router.map();
    if (current != map) {
      reset(current);
    }
    if (candidates.length == 0) {
      throw new ShardUnavailableException("Persistence unit '" + unitName + "': no shard can take a new root."
          + " New roots go to ACTIVE shards that own at least one bucket; shard map version " + current.version()
          + " has " + current.shards().values() + ". Set a shard ACTIVE, or give it buckets");
    }
    int best = 0;
    for (int i = 0; i < candidates.length; i++) {
      counters[i] += weights[i];
      if (counters[i] > counters[best]) {
        best = i;
      }
    }
    counters[best] -= totalWeight;
    return candidates[best];
  }

  private void reset(ShardMap current) {
    Set<String> owners = new HashSet<>();
    for (int bucket = 0; bucket < current.bucketCount(); bucket++) {
      owners.add(current.ownerOf(bucket));
    }
    List<ShardDescriptor> chosen = current.shards().values().stream()
        .filter(s -> s.state() == ShardState.ACTIVE && owners.contains(s.id())).toList();
    candidates = chosen.stream().map(ShardDescriptor::id).toArray(String[]::new);
    weights = chosen.stream().mapToInt(ShardDescriptor::weight).toArray();
    counters = new long[candidates.length];
    totalWeight = chosen.stream().mapToLong(ShardDescriptor::weight).sum();
    map = current;
  }
}
