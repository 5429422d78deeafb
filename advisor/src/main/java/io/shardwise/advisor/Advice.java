package io.shardwise.advisor;

import io.shardwise.advisor.JpaModel.Entity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The advisor's answer: the candidate roots judged in full, best first, and every candidate's
 * shape. {@link TextReport}, {@link #json()} and {@link AnnotationPatch} present it.
 */
public final class Advice {
  final JpaModel model;
  final DatabaseStatistics statistics;
  final List<Proposal> ranked;
  final List<Proposal> candidates;
  final boolean callsWeighted;
  /** Where the calls that weigh the queries come from, or null when every query counts once. */
  final String weightedBy;
  long elapsedNanos;

  Advice(JpaModel model, DatabaseStatistics statistics, List<Proposal> ranked, List<Proposal> candidates,
      String weightedBy) {
    this.model = model;
    this.statistics = statistics;
    this.ranked = ranked;
    this.candidates = candidates;
    this.callsWeighted = weightedBy != null;
    this.weightedBy = weightedBy;
  }

  Proposal best() {
    if (ranked.isEmpty()) {
      throw new AdvisorException("No candidate root: no entity with a long, int, short, String or UUID id is"
          + " reached by another entity's to-one association or key column.");
    }
    return ranked.get(0);
  }

  /** The judged proposals whose score is within {@link ShardKeyAdvisor#CLOSE} of the best, best first. */
  List<Proposal> close() {
    List<Proposal> close = new ArrayList<>();
    for (Proposal proposal : ranked) {
      if (best().score() - proposal.score() <= ShardKeyAdvisor.CLOSE) {
        close.add(proposal);
      }
    }
    return close;
  }

  /** The entity name of the best root. */
  public String bestRoot() {
    return best().root.name;
  }

  public String text() {
    return TextReport.of(this);
  }

  public String patch() {
    return AnnotationPatch.of(model, best());
  }

  public double elapsedSeconds() {
    return elapsedNanos / 1e9;
  }

  public String json() {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("entities", model.entities().size());
    root.put("queries", model.queries().size());
    root.put("database", statistics != null);
    root.put("catalogQueries", statistics == null ? 0 : statistics.catalogQueries());
    root.put("callsWeighted", callsWeighted);
    root.put("weightedBy", weightedBy);
    root.put("elapsedMillis", elapsedNanos / 1_000_000);
    List<Object> candidateList = new ArrayList<>();
    for (Proposal candidate : candidates) {
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("root", candidate.root.name);
      c.put("coverage", candidate.coverage);
      c.put("coLocated", candidate.count(Placement.Kind.CO_LOCATED));
      candidateList.add(c);
    }
    root.put("candidates", candidateList);
    List<Object> proposals = new ArrayList<>();
    for (Proposal proposal : ranked) {
      proposals.add(json(proposal));
    }
    root.put("proposals", proposals);
    root.put("recommended", ranked.isEmpty() ? null : best().root.name);
    return Json.write(root);
  }

  private Map<String, Object> json(Proposal proposal) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("root", proposal.root.name);
    p.put("rootClass", proposal.root.className);
    p.put("key", proposal.root.id.name());
    p.put("score", proposal.score());
    p.put("coverage", proposal.coverage);
    p.put("singleShardShare", proposal.singleShardShare);
    List<Object> placements = new ArrayList<>();
    for (Placement placement : proposal.placements.values()) {
      Map<String, Object> e = new LinkedHashMap<>();
      Entity entity = placement.entity();
      e.put("entity", entity.name);
      e.put("class", entity.className);
      e.put("table", entity.table);
      e.put("kind", placement.kind().name());
      e.put("with", placement.with() == null ? null : placement.with().name);
      e.put("via", placement.via());
      e.put("listedIn", placement.listedIn());
      e.put("keyAttribute", placement.keyAttribute());
      e.put("keyColumn", placement.keyColumn());
      e.put("keyAttributeExists", placement.keyAttributeExists());
      e.put("columnExists", placement.columnExists());
      e.put("sql", placement.sql());
      e.put("reasons", placement.reasons());
      placements.add(e);
    }
    p.put("placements", placements);
    p.put("crossings", proposal.crossings);
    List<Object> queries = new ArrayList<>();
    for (QueryVerdict verdict : proposal.verdicts) {
      Map<String, Object> q = new LinkedHashMap<>();
      q.put("name", verdict.query().name());
      q.put("query", verdict.query().text());
      q.put("verdict", verdict.kind().name());
      q.put("weight", verdict.weight());
      q.put("reason", verdict.reason());
      q.put("hint", verdict.hint());
      queries.add(q);
    }
    p.put("queries", queries);
    Balance balance = proposal.balance;
    if (balance != null) {
      Map<String, Object> b = new LinkedHashMap<>();
      b.put("sources", balance.sources());
      b.put("largestBucketShare", balance.largestBucketShare());
      Map<String, Object> shards = new LinkedHashMap<>();
      balance.largestShardShare().forEach((n, share) -> shards.put(String.valueOf(n), share));
      b.put("largestShardShare", shards);
      List<Object> hot = new ArrayList<>();
      for (Balance.HotKey key : balance.hotKeys()) {
        Map<String, Object> h = new LinkedHashMap<>();
        h.put("value", key.value());
        h.put("share", key.share());
        h.put("bucket", key.bucket());
        h.put("advice", key.advice());
        hot.add(h);
      }
      b.put("hotKeys", hot);
      p.put("balance", b);
    }
    return p;
  }
}
