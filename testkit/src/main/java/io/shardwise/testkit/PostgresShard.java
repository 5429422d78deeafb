package io.shardwise.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** One shard of a {@link PostgresTopology}: a primary and its streaming replicas. */
public final class PostgresShard {
  private final int index;
  private final PostgresNode primary;
  private final List<PostgresNode> replicas;

  PostgresShard(int index, PostgresNode primary, List<PostgresNode> replicas) {
    this.index = index;
    this.primary = primary;
    this.replicas = List.copyOf(replicas);
  }

  public int index() {
    return index;
  }

  public PostgresNode primary() {
    return primary;
  }

  public List<PostgresNode> replicas() {
    return replicas;
  }

  /** Replica {@code i}, counted from 0. */
  public PostgresNode replica(int i) {
    if (i < 0 || i >= replicas.size()) {
      throw new IndexOutOfBoundsException(
          "shard" + index + " has " + replicas.size() + " replica(s); there is no replica " + i);
    }
    return replicas.get(i);
  }

  public List<PostgresNode> nodes() {
    List<PostgresNode> all = new ArrayList<>(1 + replicas.size());
    all.add(primary);
    all.addAll(replicas);
    return all;
  }

  /** Waits until every replica has replayed everything the primary has written so far. */
  public void awaitReplicasCaughtUp(Duration timeout) {
    if (replicas.isEmpty()) {
      return;
    }
    Lsn target = primary.currentLsn();
    for (PostgresNode replica : replicas) {
      replica.awaitReplay(target, timeout);
    }
  }
}
