package io.shardwise.hibernate.readwrite.internal;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Picks the replica that serves a read: healthy and, when the read carries a pin, replayed at
 * least to the pin's LSN. The balancing policy is chosen once, when the read path is built, as one
 * of two implementations; no call tests which one is configured.
 */
sealed interface ReplicaSelector permits ReplicaSelector.RoundRobin, ReplicaSelector.LeastOutstanding {

  /** The chosen replica, or null when none qualifies. */
  ReplicaNode choose(List<ReplicaNode> replicas, long minLsn);

  static ReplicaSelector of(boolean leastOutstanding) {
    return leastOutstanding ? new LeastOutstanding() : new RoundRobin();
  }

  private static boolean eligible(ReplicaNode r, long minLsn) {
    if (!r.healthy) {
      return false;
    }
    long replayed = r.replayLsn();
    return minLsn == 0 || (replayed >= 0 && Long.compareUnsigned(replayed, minLsn) >= 0);
  }

  /** Each read starts one replica further along the list, skipping those that do not qualify. */
  final class RoundRobin implements ReplicaSelector {
    private final AtomicInteger next = new AtomicInteger();

    @Override
    public ReplicaNode choose(List<ReplicaNode> replicas, long minLsn) {
      int n = replicas.size();
      int start = Math.floorMod(next.getAndIncrement(), n);
      for (int i = 0; i < n; i++) {
        ReplicaNode r = replicas.get((start + i) % n);
        if (eligible(r, minLsn)) {
          return r;
        }
      }
      return null;
    }
  }

  /** The qualifying replica with the fewest connections out. */
  final class LeastOutstanding implements ReplicaSelector {
    @Override
    public ReplicaNode choose(List<ReplicaNode> replicas, long minLsn) {
      ReplicaNode best = null;
      for (ReplicaNode r : replicas) {
        if (eligible(r, minLsn) && (best == null || r.outstanding.get() < best.outstanding.get())) {
          best = r;
        }
      }
      return best;
    }
  }
}
