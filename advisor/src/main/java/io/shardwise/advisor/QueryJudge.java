package io.shardwise.advisor;

import io.shardwise.advisor.JpaModel.Attribute;
import io.shardwise.advisor.JpaModel.DeclaredQuery;
import io.shardwise.advisor.JpaModel.Entity;
import io.shardwise.advisor.ProposedModel.Proposed;
import io.shardwise.advisor.QueryVerdict.Kind;
import io.shardwise.queryrules.ShardKeyRule;
import io.shardwise.queryrules.ShardKeyRule.Analysis;
import io.shardwise.queryrules.ShardKeyRule.Unpinned;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A query's verdict under a proposal. Whether it runs on one shard is the processor's own
 * {@link ShardKeyRule} on the proposal's {@link ProposedModel}, never a guess: the advice cannot
 * call single-shard a query the processor would flag. Only the advice for the others (which
 * predicate, which index) reads the query's equalities by pattern.
 */
final class QueryJudge {
  /** {@code alias.a.b = :p}, {@code alias.a in (:p)}: an equality or IN on a path to a parameter or literal. */
  private static final Pattern EQUALITY = Pattern.compile(
      "(?<![\\w.])([A-Za-z_]\\w*)((?:\\.[A-Za-z_]\\w*)+)\\s*(?:=|\\s[iI][nN]\\b)\\s*\\(?\\s*(?:[:?]|'|\\d)");

  private final ProposedModel model;
  private final ShardKeyRule rule;

  QueryJudge(ProposedModel model) {
    this.model = model;
    this.rule = new ShardKeyRule(model);
  }

  QueryVerdict judge(DeclaredQuery query, double weight) {
    if (query.nativeSql()) {
      return new QueryVerdict(query, Kind.NOT_JUDGED, weight, "native SQL: the processor flags it; put the key"
          + " column in its WHERE clause, or mark it @ScatterGather", null);
    }
    ShardKeyRule.Parsed parsed = query.parsed();
    Analysis analysis = parsed == null ? null
        : rule.analyze(parsed, query.implicitRoot() == null ? null : model.proposed(query.implicitRoot()));
    if (analysis == null) {
      return new QueryVerdict(query, Kind.NOT_JUDGED, weight, "does not parse as HQL (Hibernate reports why)", null);
    }
    if (!analysis.unresolved().isEmpty()) {
      return new QueryVerdict(query, Kind.NOT_JUDGED, weight, "names " + String.join(", ", analysis.unresolved())
          + ", no entity of the scanned packages: add its package with --package", null);
    }
    if (analysis.unpinned().isEmpty()) {
      return new QueryVerdict(query, Kind.SINGLE_SHARD, weight, analysis.keyParameter() != null
          ? "pins the key with :" + analysis.keyParameter() : "pins the key of every sharded entity it reads"
          + " (or reads reference tables only)", null);
    }
    QueryVerdict worst = null;
    for (Unpinned unpinned : analysis.unpinned()) {
      QueryVerdict verdict = verdict(query, weight, unpinned);
      if (worst == null || verdict.kind().ordinal() > worst.kind().ordinal()) {
        worst = verdict;
      }
    }
    return worst;
  }

  private QueryVerdict verdict(DeclaredQuery query, double weight, Unpinned unpinned) {
    Proposed entity = (Proposed) unpinned.entity();
    String who = unpinned.describe();
    if (entity.placement == null || entity.placement.kind() == Placement.Kind.UNSHARDABLE) {
      return new QueryVerdict(query, Kind.UNSHARDABLE, weight, "reads " + entity.simpleName()
          + ", which this proposal cannot place (see its entry)", null);
    }
    if (unpinned.crossesGroups()) {
      return new QueryVerdict(query, Kind.SPLIT, weight, "joins " + who + " with " + unpinned.otherGroup().describe()
          + " of another group: their rows may live on different shards; split it, or make the other a"
          + " reference table", null);
    }
    String alias = unpinned.alias() != null ? unpinned.alias() : "e";
    String key = alias + "." + entity.placement.keyAttribute();
    String predicate = key + " = :" + entity.placement.keyAttribute();
    String uniqueAttribute = null;
    for (List<String> path : equalities(query.text(), alias)) {
      String heldId = groupIdAlong(entity.entity, path);
      if (heldId != null) {
        return new QueryVerdict(query, Kind.NEEDS_PREDICATE, weight, who + " is looked up by " + alias + "."
            + String.join(".", path) + ", " + heldId + " inside " + model.proposedRootName()
            + "'s group: the caller usually holds the key too; add \"" + predicate + "\"", predicate);
      }
      if (path.size() == 1) {
        Attribute attribute = entity.entity.attribute(path.get(0));
        if (attribute != null && attribute.kind() == JpaModel.Kind.BASIC && attribute.unique()) {
          uniqueAttribute = attribute.name();
        }
      }
    }
    if (uniqueAttribute != null) {
      return new QueryVerdict(query, Kind.GLOBAL_INDEX, weight, who + " is found by " + alias + "." + uniqueAttribute
          + ", unique and not the key: a @GlobalIndex(unique = true) on " + entity.simpleName() + "."
          + uniqueAttribute + " finds its shard without asking every shard",
          "@GlobalIndex(unique = true) on " + entity.simpleName() + "." + uniqueAttribute);
    }
    return new QueryVerdict(query, Kind.SCATTER_GATHER, weight, who + " is filtered by nothing that leads to the"
        + " key: it runs on every shard; mark it @ScatterGather, or add \"" + predicate + "\" if the caller has it",
        "@ScatterGather(queries = \"" + query.name() + "\")");
  }

  /** The attribute paths compared for equality on {@code alias} ({@code [pet, id]} for {@code v.pet.id = :p}). */
  static List<List<String>> equalities(String text, String alias) {
    List<List<String>> paths = new ArrayList<>();
    Matcher matcher = EQUALITY.matcher(text);
    while (matcher.find()) {
      if (matcher.group(1).equals(alias)) {
        paths.add(List.of(matcher.group(2).substring(1).split("\\.")));
      }
    }
    return paths;
  }

  /**
   * "the id of X" when the path names the id of an entity of the group (the entity's own, or one
   * it reaches by to-one associations), or a to-one association into the group itself; else null.
   */
  private String groupIdAlong(Entity start, List<String> path) {
    Entity current = start;
    for (int i = 0; i < path.size(); i++) {
      Attribute attribute = current.attribute(path.get(i));
      if (attribute == null) {
        return null;
      }
      boolean last = i == path.size() - 1;
      if (attribute.kind() == JpaModel.Kind.TO_ONE) {
        Entity target = model.target(attribute);
        Placement placement = target == null ? null : model.placement(target);
        if (placement == null || !placement.sharded()) {
          return null;
        }
        current = target;
        if (last) {
          return "a " + target.simpleName();
        }
      } else {
        return last && current.id == attribute ? "the id of a " + current.simpleName() : null;
      }
    }
    return null;
  }
}
