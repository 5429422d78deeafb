package io.shardwise.advisor;

import io.shardwise.advisor.JpaModel.Attribute;
import io.shardwise.advisor.JpaModel.DeclaredQuery;
import io.shardwise.advisor.JpaModel.Entity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The annotations a proposal asks for, as an annotated listing per class: what to add to each
 * entity (and to repository methods), with the field declarations that change. The processor,
 * run on the sources so annotated, accepts every query the report called single-shard.
 */
final class AnnotationPatch {
  private AnnotationPatch() {}

  static String of(JpaModel model, Proposal proposal) {
    StringBuilder out = new StringBuilder();
    out.append("// Shardwise annotations for root ").append(proposal.root.simpleName())
        .append(" (import io.shardwise.annotations.*)\n");
    Map<Entity, List<String>> scatter = new LinkedHashMap<>();
    Map<String, List<String>> repositoryHints = new LinkedHashMap<>();
    Map<Entity, List<String>> indexes = new LinkedHashMap<>();
    for (QueryVerdict verdict : proposal.verdicts) {
      Entity declaring = declaringEntity(model, verdict.query());
      if (verdict.kind() == QueryVerdict.Kind.SCATTER_GATHER) {
        if (declaring != null) {
          scatter.computeIfAbsent(declaring, e -> new ArrayList<>()).add(verdict.query().name());
        } else {
          repositoryHints.computeIfAbsent(verdict.query().name(), n -> new ArrayList<>()).add("@ScatterGather");
        }
      } else if (verdict.kind() == QueryVerdict.Kind.GLOBAL_INDEX) {
        String attribute = verdict.hint().substring(verdict.hint().lastIndexOf('.') + 1);
        for (Entity entity : model.entities()) {
          if (verdict.hint().endsWith(" on " + entity.simpleName() + "." + attribute)
              && !indexes.computeIfAbsent(entity, e -> new ArrayList<>()).contains(attribute)) {
            indexes.get(entity).add(attribute);
          }
        }
      } else if (verdict.kind() == QueryVerdict.Kind.NEEDS_PREDICATE) {
        String where = declaring != null ? declaring.simpleName() : verdict.query().name();
        repositoryHints.computeIfAbsent(verdict.query().name(), n -> new ArrayList<>())
            .add("// " + where + ": add \"" + verdict.hint() + "\" to the WHERE clause");
      }
    }
    for (Placement placement : proposal.placements.values()) {
      Entity entity = placement.entity();
      out.append('\n').append("// ").append(entity.className).append(" — ").append(placement.kind().label)
          .append('\n');
      switch (placement.kind()) {
        case ROOT -> out.append("@ShardKey on ").append(entity.id.name()).append(":\n  @Id @ShardKey private ")
            .append(keyType(entity)).append(' ').append(entity.id.name()).append(";")
            .append(entity.id.javaType() == Integer.class || entity.id.javaType() == int.class
                ? "   // was " + entity.id.javaType().getSimpleName() + ": Snowflake ids (adopting.md, step 3)" : "")
            .append('\n');
        case CO_LOCATED -> coLocated(out, proposal, placement);
        case REFERENCE -> out.append("@ReferenceTable\n");
        case UNSHARDABLE -> out.append("// no annotation: ").append(placement.reasons().get(0)).append('\n');
      }
      List<String> queries = scatter.get(entity);
      if (queries != null) {
        out.append("@ScatterGather(queries = {\"").append(String.join("\", \"", queries)).append("\"})\n");
      }
      for (String attribute : indexes.getOrDefault(entity, List.of())) {
        out.append("@GlobalIndex(unique = true) on ").append(attribute).append('\n');
      }
    }
    if (!repositoryHints.isEmpty()) {
      out.append("\n// queries\n");
      repositoryHints.forEach((query, hints) -> {
        for (String hint : hints) {
          out.append(hint.startsWith("//") ? hint : hint + " on " + query).append('\n');
        }
      });
    }
    return out.toString();
  }

  private static void coLocated(StringBuilder out, Proposal proposal, Placement placement) {
    out.append("@CoLocated(with = ").append(placement.with().simpleName()).append(".class");
    if (placement.via() != null) {
      out.append(", via = \"").append(placement.via()).append('"');
    }
    if (placement.listedIn() != null) {
      out.append(", listedIn = \"").append(placement.listedIn()).append('"');
    }
    out.append(")\n");
    if (placement.keyAttributeExists()) {
      out.append("@ShardKey on ").append(placement.keyAttribute()).append('\n');
      return;
    }
    out.append("  @ShardKey @Column(name = \"").append(placement.keyColumn()).append("\") private ")
        .append(keyType(proposal.root)).append(' ').append(placement.keyAttribute()).append(";   // new")
        .append(placement.columnExists() ? ", on the existing column" : ", on the column the SQL adds").append('\n');
    Entity entity = placement.entity();
    if (placement.listedIn() != null) {
      out.append("  // and on ").append(placement.with().simpleName()).append('.').append(placement.listedIn())
          .append(": @JoinColumn(name = \"").append(placement.keyColumn())
          .append("\", insertable = false, updatable = false)   // the child's key writes the column\n");
    }
    if (placement.via() != null && placement.columnExists()) {
      Attribute hop = entity.attribute(placement.via());
      out.append("  @JoinColumn(name = \"").append(hop.column()).append("\", insertable = false, updatable = false) ")
          .append(hop.name()).append(";   // the association reads the key column, the key writes it\n");
    }
  }

  private static String keyType(Entity root) {
    Class<?> type = root.id.javaType();
    return type == String.class || type == java.util.UUID.class ? type.getSimpleName() : "Long";
  }

  private static Entity declaringEntity(JpaModel model, DeclaredQuery query) {
    for (Entity entity : model.entities()) {
      if (entity.queries.contains(query)) {
        return entity;
      }
    }
    return null;
  }
}
