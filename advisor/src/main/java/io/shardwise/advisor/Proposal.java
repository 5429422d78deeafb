package io.shardwise.advisor;

import io.shardwise.advisor.JpaModel.Entity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** One candidate root and everything the advisor derives from it. */
final class Proposal {
  final Entity root;
  final Map<Entity, Placement> placements = new LinkedHashMap<>();
  /** Associations from the group to entities outside it, each a sentence with its fix. */
  final List<String> crossings = new ArrayList<>();
  final List<QueryVerdict> verdicts = new ArrayList<>();
  /** Share of the entities (of the rows, with a database) that are sharded in the group or reference tables. */
  double coverage;
  /** Share of the (calls-weighted) queries that run on one shard. */
  double singleShardShare;
  Balance balance;

  Proposal(Entity root) {
    this.root = root;
  }

  Placement placement(Entity entity) {
    return placements.get(entity);
  }

  /**
   * Half the coverage, half the share that runs on one shard once every "needs one predicate" query
   * adds its predicate (the caller holds the key there): a root that places the data but not the
   * queries loses, and so does one that serves a busy lookup but leaves tables without a place.
   */
  double score() {
    return 0.5 * coverage + 0.5 * singleShardOnceFixedShare();
  }

  double singleShardOnceFixedShare() {
    double total = totalWeight();
    return total == 0 ? 0
        : (weightOf(QueryVerdict.Kind.SINGLE_SHARD) + weightOf(QueryVerdict.Kind.NEEDS_PREDICATE)) / total;
  }

  long count(Placement.Kind kind) {
    return placements.values().stream().filter(p -> p.kind() == kind).count();
  }

  double weightOf(QueryVerdict.Kind kind) {
    return verdicts.stream().filter(v -> v.kind() == kind).mapToDouble(QueryVerdict::weight).sum();
  }

  double totalWeight() {
    return verdicts.stream().mapToDouble(QueryVerdict::weight).sum();
  }
}
