package io.shardwise.advisor;

import io.shardwise.advisor.JpaModel.DeclaredQuery;

/**
 * What one declared query becomes under a proposal.
 *
 * @param weight the query's {@code pg_stat_statements.calls} when known, else 1
 * @param reason the sentence the report prints: which predicate, which index, why not
 * @param hint the annotation or predicate to add, or null
 */
record QueryVerdict(DeclaredQuery query, Kind kind, double weight, String reason, String hint) {

  enum Kind {
    SINGLE_SHARD("single shard"),
    NEEDS_PREDICATE("needs one predicate"),
    GLOBAL_INDEX("global index"),
    SCATTER_GATHER("scatter-gather"),
    SPLIT("split: joins two groups"),
    UNSHARDABLE("reads an unshardable entity"),
    NOT_JUDGED("not judged");

    final String label;

    Kind(String label) {
      this.label = label;
    }
  }
}
