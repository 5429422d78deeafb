package io.shardwise.advisor;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The advice as a person reads it in a terminal: the ranking, then each close proposal with its reasons. */
final class TextReport {
  private final Advice advice;
  private final StringBuilder out = new StringBuilder();

  private TextReport(Advice advice) {
    this.advice = advice;
  }

  static String of(Advice advice) {
    return new TextReport(advice).write();
  }

  private String write() {
    JpaModel model = advice.model;
    line("Shardwise shard-key advice: %d entities, %d quer%s, %s%s (%.1f s)", model.entities().size(),
        model.queries().size(), model.queries().size() == 1 ? "y" : "ies", advice.statistics == null ? "no database (shape only: give --jdbc-url for sizes,"
            + " writes and balance)" : "database statistics read in " + advice.statistics.catalogQueries()
            + " catalog queries", advice.callsWeighted ? ", queries weighted by " + advice.weightedBy
            : advice.statistics != null ? ", pg_stat_statements not installed: every query counts once" : "",
        advice.elapsedSeconds());
    line("");
    line("Candidate roots, ranked by score = 1/2 coverage (share of %s placed in the group or as reference"
        + " tables) + 1/2 share of %s that run on one shard once each \"needs one predicate\" query adds it:",
        advice.statistics == null ? "entities" : "rows", advice.callsWeighted ? "calls" : "queries");
    int rank = 1;
    for (Proposal p : advice.ranked) {
      line("  %d. %-20s score %.2f   coverage %5.1f%%   single-shard %5.1f%%   co-located %d, reference %d,"
          + " unshardable %d", rank++, p.root.simpleName(), p.score(), 100 * p.coverage, 100 * p.singleShardShare,
          p.count(Placement.Kind.CO_LOCATED), p.count(Placement.Kind.REFERENCE),
          p.count(Placement.Kind.UNSHARDABLE));
    }
    if (advice.candidates.size() > advice.ranked.size()) {
      StringBuilder others = new StringBuilder();
      for (Proposal p : advice.candidates.subList(advice.ranked.size(), advice.candidates.size())) {
        others.append(others.length() == 0 ? "" : ", ").append(p.root.simpleName())
            .append(String.format(Locale.ROOT, " (%.0f%%)", 100 * p.coverage));
      }
      line("  not judged on queries, lower coverage: %s", others);
    }
    List<Proposal> close = advice.close();
    if (close.size() > 1) {
      line("");
      line("Close call: %d roots within %.2f of the best. Side by side:", close.size(), ShardKeyAdvisor.CLOSE);
      sideBySide(close);
    }
    for (Proposal proposal : close) {
      line("");
      proposal(proposal);
    }
    line("");
    line("Next: apply the annotations (shardwise advise --patch), run the SQL of each new key column, change the"
        + " ids to Long (adopting.md, step 3), then compile with shardwise-processor: it accepts every query"
        + " called single-shard here and flags the rest.");
    return out.toString();
  }

  private void sideBySide(List<Proposal> close) {
    StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "  %-28s", ""));
    for (Proposal p : close) {
      header.append(String.format(Locale.ROOT, "%-18s", p.root.simpleName()));
    }
    line("%s", header);
    row(close, "score", p -> String.format(Locale.ROOT, "%.2f", p.score()));
    row(close, "coverage", p -> percent(p.coverage));
    row(close, "single-shard", p -> percent(p.singleShardShare));
    row(close, "... with the predicates", p -> percent(p.singleShardOnceFixedShare()));
    for (QueryVerdict.Kind kind : QueryVerdict.Kind.values()) {
      if (kind != QueryVerdict.Kind.SINGLE_SHARD && close.stream().anyMatch(p -> p.weightOf(kind) > 0)) {
        row(close, kind.label, p -> percent(p.totalWeight() == 0 ? 0 : p.weightOf(kind) / p.totalWeight()));
      }
    }
    row(close, "co-located / reference", p -> p.count(Placement.Kind.CO_LOCATED) + " / "
        + p.count(Placement.Kind.REFERENCE));
    row(close, "unshardable", p -> String.valueOf(p.count(Placement.Kind.UNSHARDABLE)));
    row(close, "new key columns", p -> String.valueOf(p.placements.values().stream()
        .filter(x -> x.sharded() && !x.columnExists()).count()));
    if (close.stream().anyMatch(p -> p.balance != null)) {
      for (int shards : Balance.SHARD_COUNTS) {
        row(close, "largest shard of " + shards, p -> p.balance == null ? "-"
            : percent(p.balance.largestShardShare().get(shards)));
      }
      row(close, "hottest key", p -> p.balance == null || p.balance.hotKeys().isEmpty() ? "-"
          : p.balance.hotKeys().get(0).value() + " (" + percent(p.balance.hotKeys().get(0).share()) + ")");
    }
  }

  private interface Cell {
    String of(Proposal proposal);
  }

  private void row(List<Proposal> close, String label, Cell cell) {
    StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "  %-28s", label));
    for (Proposal p : close) {
      row.append(String.format(Locale.ROOT, "%-18s", cell.of(p)));
    }
    line("%s", row.toString().stripTrailing());
  }

  private void proposal(Proposal proposal) {
    line("== Root %s: shard key %s.%s ==", proposal.root.simpleName(), proposal.root.simpleName(),
        proposal.root.id.name());
    for (Placement placement : proposal.placements.values()) {
      line("  %-20s %-16s %s", placement.entity().simpleName(), placement.kind().label, placement.how());
      for (String reason : placement.reasons()) {
        line("  %-20s   because %s", "", reason);
      }
      for (String sql : placement.sql()) {
        line("  %-20s   %s", "", sql);
      }
    }
    for (String crossing : proposal.crossings) {
      line("  ! %s", crossing);
    }
    double total = proposal.totalWeight();
    line("  Queries: %s of %s%s run on one shard (%s)", number(proposal.weightOf(QueryVerdict.Kind.SINGLE_SHARD)),
        number(total), advice.callsWeighted ? " calls" : "", percent(proposal.singleShardShare));
    for (QueryVerdict verdict : proposal.verdicts) {
      line("    %-28s %-28s%s %s", verdict.query().name(), verdict.kind().label,
          advice.callsWeighted ? String.format(Locale.ROOT, " %,8.0f calls", verdict.weight()) : "",
          verdict.kind() == QueryVerdict.Kind.SINGLE_SHARD ? "" : verdict.reason());
    }
    Balance balance = proposal.balance;
    if (balance == null) {
      line("  Balance: %s", advice.statistics == null ? "needs --jdbc-url (pg_stats of the key columns)"
          : "no pg_stats for the key columns (run ANALYZE)");
      return;
    }
    StringBuilder shards = new StringBuilder();
    for (Map.Entry<Integer, Double> e : balance.largestShardShare().entrySet()) {
      shards.append(shards.length() == 0 ? "" : ", ").append(percent(e.getValue())).append(" of ")
          .append(e.getKey());
    }
    line("  Balance (pg_stats of %s): largest bucket %s of the rows; largest shard %s shards (even share %s of %d)",
        String.join(", ", balance.sources()), percent(balance.largestBucketShare()), shards,
        percent(1.0 / Balance.SHARD_COUNTS[Balance.SHARD_COUNTS.length - 1]),
        Balance.SHARD_COUNTS[Balance.SHARD_COUNTS.length - 1]);
    for (Balance.HotKey key : balance.hotKeys()) {
      line("    hot: %s", key.advice());
    }
  }

  private static String percent(double share) {
    return String.format(Locale.ROOT, "%.1f%%", 100 * share);
  }

  private static String number(double value) {
    return String.format(Locale.ROOT, "%,.0f", value);
  }

  private void line(String format, Object... args) {
    out.append(String.format(Locale.ROOT, format, args)).append('\n');
  }
}
