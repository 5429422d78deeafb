package io.shardwise.advisor;

import io.shardwise.advisor.JpaModel.Attribute;
import io.shardwise.advisor.JpaModel.DeclaredQuery;
import io.shardwise.advisor.JpaModel.Entity;
import io.shardwise.advisor.Placement.Kind;
import io.shardwise.hibernate.routing.ShardKeyType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Proposes the shard key of an unsharded application: which entity is the root, how every other
 * entity follows it (co-located through which association or column, a reference table, or not
 * at all, and why), what each declared query becomes, and how evenly the key spreads the rows.
 *
 * <p>Every entity with an id of a shardable type that another entity reaches by a to-one
 * association (or by a column holding its id) is a candidate root. The {@value #PLACED} that the
 * most entities reach are placed (how much of the model, or of the rows, each holds together); the
 * best {@value #FULLY_JUDGED} are then judged on the queries (each query parsed once for all), and ranked by half coverage, half share
 * of single-shard queries (calls-weighted when {@code pg_stat_statements} is there). Candidates
 * within {@value #CLOSE} of the best are shown side by side.
 */
public final class ShardKeyAdvisor {
  /** A reference table is copied to every shard: at most this many rows. */
  static final double REFERENCE_MAX_ROWS = 100_000;
  static final int FULLY_JUDGED = 4;
  /** Candidates placed in full (the most reached first); the rest are listed by their reach only. */
  static final int PLACED = 8;
  static final double CLOSE = 0.10;

  private final JpaModel model;
  private final DatabaseStatistics statistics;
  private final CallWeights loggedCalls;
  private final Map<Entity, List<Entity>> toOneReferrers = new HashMap<>();
  private final Map<Entity, String> snakeColumns = new HashMap<>();

  ShardKeyAdvisor(JpaModel model, DatabaseStatistics statistics) {
    this(model, statistics, null);
  }

  /** @param loggedCalls the calls a query log counted, or null to take pg_stat_statements' when installed */
  ShardKeyAdvisor(JpaModel model, DatabaseStatistics statistics, CallWeights loggedCalls) {
    this.model = model;
    this.statistics = statistics;
    this.loggedCalls = loggedCalls;
    for (Entity entity : model.entities()) {
      for (Attribute attribute : entity.attributes.values()) {
        Entity target = model.target(attribute);
        if (target != null && attribute.owningToOne()) {
          List<Entity> referrers = toOneReferrers.computeIfAbsent(target, t -> new ArrayList<>());
          if (!referrers.contains(entity)) {
            referrers.add(entity);
          }
        }
      }
    }
  }

  /** Reads the classes (and, with a URL, the database's statistics) and advises. */
  public static Advice advise(List<Path> classPath, List<String> packages, String jdbcUrl, Properties login) {
    return advise(classPath, packages, jdbcUrl, login, null);
  }

  /**
   * Reads the classes (and, with a URL, the database's statistics) and advises, weighing each query
   * by how often it occurs in {@code queryLog} (see {@link QueryLog}) when one is given, in place of
   * {@code pg_stat_statements}' calls.
   */
  public static Advice advise(List<Path> classPath, List<String> packages, String jdbcUrl, Properties login,
      Path queryLog) {
    long start = System.nanoTime();
    JpaModel model = JpaModelReader.read(ClassScanner.load(classPath, packages, ShardKeyAdvisor.class.getClassLoader()));
    if (model.entities().isEmpty()) {
      throw new AdvisorException("No @Entity class under " + (packages.isEmpty() ? "the class path" : "packages "
          + packages) + " in " + classPath + ": pass the compiled classes (--classes target/classes) and the"
          + " entity packages (--package com.example.domain).");
    }
    DatabaseStatistics statistics = jdbcUrl == null ? null
        : DatabaseStatistics.read(jdbcUrl, login == null ? new Properties() : login, keyColumns(model));
    CallWeights logged = queryLog == null ? null
        : new CallWeights(model, QueryLog.read(queryLog), "the query log " + queryLog.getFileName());
    Advice advice = new ShardKeyAdvisor(model, statistics, logged).advise();
    advice.elapsedNanos = System.nanoTime() - start;
    return advice;
  }

  /** Every id, join and id-like column: the candidates' key columns, read from pg_stats in one query. */
  static List<String[]> keyColumns(JpaModel model) {
    List<String[]> columns = new ArrayList<>();
    for (Entity entity : model.entities()) {
      for (Attribute attribute : entity.attributes.values()) {
        boolean idLike = attribute.kind() == JpaModel.Kind.BASIC
            && (attribute == entity.id || attribute.name().endsWith("Id") || attribute.name().endsWith("_id"));
        if (idLike || attribute.owningToOne()) {
          for (String table : List.of(entity.table.toLowerCase(Locale.ROOT), JpaModel.snakeCase(entity.table))) {
            columns.add(new String[] {table, attribute.column().toLowerCase(Locale.ROOT)});
            columns.add(new String[] {table, JpaModel.snakeCase(attribute.column())});
          }
        }
      }
    }
    return columns;
  }

  Advice advise() {
    List<Entity> candidates = new ArrayList<>();
    Map<Entity, Integer> reach = new HashMap<>();
    for (Entity entity : model.entities()) {
      if (isCandidate(entity)) {
        candidates.add(entity);
        reach.put(entity, reach(entity));
      }
    }
    candidates.sort(Comparator.comparingInt((Entity e) -> -reach.get(e)).thenComparing(e -> e.name));
    List<Proposal> shaped = new ArrayList<>();
    for (Entity entity : candidates.subList(0, Math.min(PLACED, candidates.size()))) {
      shaped.add(place(entity));
    }
    shaped.sort(Comparator.comparingDouble((Proposal p) -> p.coverage).reversed()
        .thenComparing(p -> -p.count(Kind.CO_LOCATED)).thenComparing(p -> p.root.name));
    CallWeights weights = loggedCalls != null ? loggedCalls
        : statistics != null && statistics.statementsInstalled()
            ? new CallWeights(model, statistics.statements(), "pg_stat_statements calls") : null;
    model.queries().parallelStream().forEach(DeclaredQuery::parsed);
    List<Proposal> judged = new ArrayList<>(shaped.subList(0, Math.min(FULLY_JUDGED, shaped.size())));
    for (Proposal proposal : judged) {
      judgeQueries(proposal, weights);
      proposal.balance = balance(proposal);
    }
    judged.sort(Comparator.comparingDouble(Proposal::score).reversed());
    return new Advice(model, statistics, judged, shaped, weights == null ? null : weights.describe());
  }

  /** How many entities reach this one by chains of to-one associations: the cheap first cut of the candidates. */
  private int reach(Entity root) {
    Set<Entity> seen = new HashSet<>(List.of(root));
    List<Entity> level = List.of(root);
    while (!level.isEmpty()) {
      List<Entity> next = new ArrayList<>();
      for (Entity parent : level) {
        for (Entity child : toOneReferrers.getOrDefault(parent, List.of())) {
          if (seen.add(child)) {
            next.add(child);
          }
        }
      }
      level = next;
    }
    return seen.size() - 1;
  }

  private boolean isCandidate(Entity entity) {
    if (entity.id == null || ShardKeyType.forJavaType(entity.id.javaType()) == null) {
      return false;
    }
    if (toOneReferrers.containsKey(entity)) {
      return true;
    }
    for (Entity other : model.entities()) {
      if (other != entity && existingKeyAttribute(other, entity) != null) {
        return true;
      }
    }
    return entity.attributes.values().stream().anyMatch(Attribute::listsWithJoinColumn);
  }

  // ---- placement ---------------------------------------------------------------------------------

  Proposal place(Entity root) {
    Proposal proposal = new Proposal(root);
    String keyName = decapitalize(root.simpleName()) + "Id";
    List<String> rootReasons = new ArrayList<>();
    proposal.placements.put(root, new Placement(root, Kind.ROOT, null, null, null, root.id.name(), root.id.column(),
        true, true, List.of(), rootReasons));
    List<Entity> queue = new ArrayList<>();
    queue.add(root);
    for (Attribute list : root.attributes.values()) {
      Entity child = model.target(list);
      if (list.listsWithJoinColumn() && child != null && !proposal.placements.containsKey(child)) {
        proposal.placements.put(child, new Placement(child, Kind.CO_LOCATED, root, null, list.name(), keyName,
            list.column(), false, true, List.of(), List.of(root.simpleName() + " lists it in " + list.name()
                + " (a unidirectional @OneToMany @JoinColumn): " + child.table + "." + list.column()
                + " already holds the key")));
        queue.add(child);
      }
    }
    for (Entity entity : model.entities()) {
      Attribute column = entity == root ? null : existingKeyAttribute(entity, root);
      if (column != null && !proposal.placements.containsKey(entity)) {
        Attribute direct = directToOne(entity, root);
        proposal.placements.put(entity, new Placement(entity, Kind.CO_LOCATED, root,
            direct == null ? null : direct.name(), null, column.name(), column.column(), true, true, List.of(),
            List.of("its attribute " + column.name() + " (column " + column.column() + ") already holds "
                + root.simpleName() + "'s id" + (foreignKey(entity, column, root) ? ", with a foreign key to "
                + root.table : ""))));
        queue.add(entity);
      }
    }
    List<Entity> level = new ArrayList<>(queue);
    while (!level.isEmpty()) {
      Map<Entity, Attribute> hops = new LinkedHashMap<>();
      Map<Entity, Entity> parents = new HashMap<>();
      for (Entity parent : level) {
        for (Entity child : toOneReferrers.getOrDefault(parent, List.of())) {
          Attribute hop = directToOne(child, parent);
          Attribute chosen = hops.get(child);
          if (!proposal.placements.containsKey(child)
              && (chosen == null || !chosen.mandatory() && hop.mandatory())) {
            hops.put(child, hop);
            parents.put(child, parent);
          }
        }
      }
      level = new ArrayList<>(hops.keySet());
      for (Entity child : level) {
        Entity parent = parents.get(child);
        proposal.placements.put(child,
            viaPlacement(root, keyName, child, hops.get(child), parent, proposal.placement(parent)));
      }
    }
    rootReasons.add((proposal.placements.size() - 1) + " entities follow it (by to-one associations, a column"
        + " holding its id, or its list); the key is its id, " + root.id.name());
    if (root.id.javaType() != Long.class && root.id.javaType() != long.class
        && ShardKeyType.forJavaType(root.id.javaType()) != ShardKeyType.STRING
        && ShardKeyType.forJavaType(root.id.javaType()) != ShardKeyType.UUID) {
      rootReasons.add("its id is " + root.id.javaType().getSimpleName() + ": declare it Long and let Shardwise"
          + " give Snowflake ids (adopting.md, step 3); existing ids keep their values");
    }
    placeTheRest(proposal);
    proposal.coverage = coverage(proposal);
    return proposal;
  }

  private Placement viaPlacement(Entity root, String keyName, Entity child, Attribute hop, Entity parent,
      Placement parentPlacement) {
    if (parent == root) {
      return new Placement(child, Kind.CO_LOCATED, root, hop.name(), null, keyName, hop.column(), false, true,
          List.of(), List.of(child.simpleName() + "." + hop.name() + " leads to " + root.simpleName() + ": its join"
              + " column " + hop.column() + " already holds the key (map the association read-only on it)"));
    }
    boolean throughPath = parentPlacement.via() != null && parentPlacement.with() == root;
    Entity with = throughPath ? root : parent;
    String via = throughPath ? hop.name() + "." + parentPlacement.via() : hop.name();
    String column = parentPlacement.keyColumn();
    String keyType = keySqlType(root);
    List<String> sql = List.of(
        "ALTER TABLE " + child.table + " ADD COLUMN " + column + " " + keyType + ";",
        "UPDATE " + child.table + " c SET " + column + " = p." + column + " FROM " + parent.table + " p WHERE p."
            + parent.id.column() + " = c." + hop.column() + " AND c." + column + " IS NULL;"
            + "  -- in batches on a large table",
        "ALTER TABLE " + child.table + " ALTER COLUMN " + column + " SET NOT NULL;",
        "CREATE INDEX CONCURRENTLY " + child.table + "_" + column + " ON " + child.table + " (" + column + ");");
    return new Placement(child, Kind.CO_LOCATED, with, via, null, keyName, column, false, false, sql,
        List.of(child.simpleName() + " reaches " + root.simpleName() + " by " + (throughPath ? via : via + " (then "
            + parent.simpleName() + "'s key)") + "; " + child.table + " has no " + column
            + ": add it and fill it from " + parent.table + "." + column));
  }

  private void placeTheRest(Proposal proposal) {
    boolean changed = true;
    while (changed) {
      changed = false;
      for (Entity entity : model.entities()) {
        if (proposal.placements.containsKey(entity)) {
          continue;
        }
        List<String> readers = readers(proposal, entity);
        if (!readers.isEmpty() && leadsToNoShardedEntity(proposal, entity) && smallAndReadMostly(entity)
            && (statistics != null || isLookupShaped(entity))) {
          proposal.placements.put(entity, new Placement(entity, Kind.REFERENCE, null, null, null, null, null, false,
              false, List.of(), List.of(referenceReason(proposal.root, entity, readers))));
          changed = true;
        }
      }
    }
    for (Entity entity : model.entities()) {
      if (!proposal.placements.containsKey(entity)) {
        proposal.placements.put(entity, new Placement(entity, Kind.UNSHARDABLE, null, null, null, null, null, false,
            false, List.of(), List.of(unshardableReason(proposal, entity))));
      }
    }
    for (Placement placement : proposal.placements.values()) {
      if (!placement.sharded()) {
        continue;
      }
      for (Attribute attribute : placement.entity().attributes.values()) {
        Entity target = model.target(attribute);
        Placement other = target == null ? null : proposal.placement(target);
        if (other != null && other.kind() == Kind.UNSHARDABLE) {
          proposal.crossings.add(placement.entity().simpleName() + "." + attribute.name() + " leads to "
              + target.simpleName() + ", outside " + proposal.root.simpleName() + "'s group"
              + " ([AssociationAcrossShards]): map " + (attribute.kind() == JpaModel.Kind.TO_ONE ? "its id as a plain"
              + " column" : "the collection away (query it by its own key)") + ", or give " + target.simpleName()
              + " a place in the group");
        }
      }
    }
  }

  /** {@code Pet.type}: the placed entities that read this one through an owning to-one. */
  private List<String> readers(Proposal proposal, Entity entity) {
    List<String> readers = new ArrayList<>();
    for (Entity referrer : toOneReferrers.getOrDefault(entity, List.of())) {
      Placement placement = proposal.placement(referrer);
      if (placement != null && placement.kind() != Kind.UNSHARDABLE) {
        readers.add(referrer.simpleName() + "." + directToOne(referrer, entity).name());
      }
    }
    return readers;
  }

  private boolean leadsToNoShardedEntity(Proposal proposal, Entity entity) {
    for (Attribute attribute : entity.attributes.values()) {
      Entity target = model.target(attribute);
      Placement placement = target == null ? null : proposal.placement(target);
      if (target != null && (placement == null || placement.sharded())) {
        if (placement != null || attribute.owningToOne()) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Without a database, only an entity that belongs to nothing (no to-one association of its own:
   * pet types, plans, countries) is taken for a reference table; one that belongs to something (an
   * order to its buyer) holds rows that grow with it.
   */
  private static boolean isLookupShaped(Entity entity) {
    return entity.attributes.values().stream().noneMatch(Attribute::owningToOne);
  }

  private boolean smallAndReadMostly(Entity entity) {
    DatabaseStatistics.Table table = statistics == null ? null : statistics.table(entity.table);
    return table == null || table.rows() <= REFERENCE_MAX_ROWS && table.changes() <= Math.max(table.rows(), 1);
  }

  private String referenceReason(Entity root, Entity entity, List<String> readers) {
    String base = "no to-one path to " + root.simpleName() + "; read by " + String.join(", ", readers)
        + "; it leads to no sharded entity";
    DatabaseStatistics.Table table = statistics == null ? null : statistics.table(entity.table);
    if (table == null) {
      return base + (statistics == null ? ": a reference table by its shape (give --jdbc-url to check its size"
          + " and writes)" : ": a reference table by its shape (no table " + entity.table + " in the database)");
    }
    return base + String.format(Locale.ROOT, "; %,.0f rows, %,d updates and deletes since the statistics were"
        + " reset: small and read-mostly, so every shard holds a copy", table.rows(), table.changes());
  }

  private String unshardableReason(Proposal proposal, Entity entity) {
    Entity root = proposal.root;
    if (!readers(proposal, entity).isEmpty()) {
      DatabaseStatistics.Table table = statistics == null ? null : statistics.table(entity.table);
      if (table != null && !smallAndReadMostly(entity)) {
        return String.format(Locale.ROOT, "no to-one path to %s, and with %,.0f rows and %,d updates and deletes it"
            + " is too large or busy for a reference table (at most %,.0f rows, read-mostly): give it a root of its"
            + " own (a second group) or keep it outside the sharded persistence unit", root.simpleName(),
            table.rows(), table.changes(), REFERENCE_MAX_ROWS);
      }
      return "read by " + String.join(", ", readers(proposal, entity)) + " but " + (statistics == null
          && leadsToNoShardedEntity(proposal, entity) ? "it belongs to something (it has to-one associations of"
          + " its own), so its rows grow with the data and it is no reference table by its shape"
          : "it leads to sharded entities, so it cannot be a reference table") + "; and no to-one path takes it to "
          + root.simpleName() + ": add a to-one association or a " + decapitalize(root.simpleName()) + "Id column";
    }
    for (Attribute attribute : entity.attributes.values()) {
      Entity target = model.target(attribute);
      Placement placement = target == null ? null : proposal.placement(target);
      if (placement != null && placement.sharded()) {
        return "it reaches " + root.simpleName() + "'s group only through " + entity.simpleName() + "."
            + attribute.name() + " (a collection or inverse side), which carries no key: add a to-one association"
            + " towards " + root.simpleName() + " or a " + decapitalize(root.simpleName()) + "Id column";
      }
    }
    return "no association with " + root.simpleName() + "'s group: a root of its own, or outside the sharded"
        + " persistence unit";
  }

  private double coverage(Proposal proposal) {
    double placedRows = 0;
    double allRows = 0;
    int placed = 0;
    for (Placement placement : proposal.placements.values()) {
      DatabaseStatistics.Table table = statistics == null ? null : statistics.table(placement.entity().table);
      double rows = table == null ? 0 : Math.max(1, table.rows());
      allRows += rows;
      if (placement.kind() != Kind.UNSHARDABLE) {
        placed++;
        placedRows += rows;
      }
    }
    return allRows > 0 ? placedRows / allRows : (double) placed / proposal.placements.size();
  }

  // ---- queries and balance -----------------------------------------------------------------------

  private void judgeQueries(Proposal proposal, CallWeights weights) {
    QueryJudge judge = new QueryJudge(new ProposedModel(model, proposal));
    double single = 0;
    double total = 0;
    for (DeclaredQuery query : model.queries()) {
      double weight = weights == null ? 1 : weights.calls(query);
      QueryVerdict verdict = judge.judge(query, weight);
      proposal.verdicts.add(verdict);
      total += weight;
      if (verdict.kind() == QueryVerdict.Kind.SINGLE_SHARD) {
        single += weight;
      }
    }
    proposal.singleShardShare = total > 0 ? single / total : 0;
  }

  private Balance balance(Proposal proposal) {
    if (statistics == null) {
      return null;
    }
    List<Balance.Sample> samples = new ArrayList<>();
    for (Placement placement : proposal.placements.values()) {
      if (!placement.sharded() || !placement.columnExists()) {
        continue;
      }
      Entity entity = placement.entity();
      DatabaseStatistics.Table table = statistics.table(entity.table);
      if (table == null) {
        continue;
      }
      DatabaseStatistics.ColumnStats column = statistics.column(table.name(), placement.keyColumn());
      if (column == null) {
        column = statistics.column(table.name(), JpaModel.snakeCase(placement.keyColumn()));
      }
      if (column != null) {
        samples.add(new Balance.Sample(table.name(), column.column(), table.rows(), column));
      }
    }
    return Balance.estimate(samples, ShardKeyType.forJavaType(proposal.root.id.javaType()));
  }

  // ---- helpers -----------------------------------------------------------------------------------

  /** A basic attribute of {@code entity} that already holds {@code root}'s id, or null. */
  private Attribute existingKeyAttribute(Entity entity, Entity root) {
    if (root.id == null) {
      return null;
    }
    ShardKeyType rootType = ShardKeyType.forJavaType(root.id.javaType());
    String name = decapitalize(root.simpleName()) + "Id";
    String column = snakeColumns.computeIfAbsent(root, r -> JpaModel.snakeCase(r.simpleName()) + "_id");
    for (Attribute attribute : entity.attributes.values()) {
      if (attribute.kind() != JpaModel.Kind.BASIC || attribute == entity.id
          || !sameKeyFamily(rootType, ShardKeyType.forJavaType(attribute.javaType()))) {
        continue;
      }
      if (attribute.name().equals(name) || attribute.column().equalsIgnoreCase(column)
          || foreignKey(entity, attribute, root)) {
        return attribute;
      }
    }
    return null;
  }

  private static boolean sameKeyFamily(ShardKeyType a, ShardKeyType b) {
    if (a == null || b == null) {
      return false;
    }
    return a == b || a != ShardKeyType.STRING && a != ShardKeyType.UUID && b != ShardKeyType.STRING
        && b != ShardKeyType.UUID;
  }

  private boolean foreignKey(Entity entity, Attribute attribute, Entity root) {
    if (statistics == null) {
      return false;
    }
    DatabaseStatistics.Table from = statistics.table(entity.table);
    DatabaseStatistics.Table to = statistics.table(root.table);
    if (from == null || to == null) {
      return false;
    }
    for (DatabaseStatistics.ForeignKey key : statistics.foreignKeys()) {
      if (key.table().equals(from.name()) && key.referencedTable().equals(to.name())
          && (key.column().equalsIgnoreCase(attribute.column())
              || key.column().equals(JpaModel.snakeCase(attribute.column())))) {
        return true;
      }
    }
    return false;
  }

  /** The owning to-one from one entity to another, a mandatory one first; null when none. */
  private Attribute directToOne(Entity from, Entity to) {
    Attribute found = null;
    for (Attribute attribute : from.attributes.values()) {
      if (attribute.owningToOne() && model.target(attribute) == to && (found == null || attribute.mandatory()
          && !found.mandatory())) {
        found = attribute;
      }
    }
    return found;
  }

  private static String keySqlType(Entity root) {
    ShardKeyType type = ShardKeyType.forJavaType(root.id.javaType());
    return type == ShardKeyType.STRING ? "text" : type == ShardKeyType.UUID ? "uuid" : "bigint";
  }

  static String decapitalize(String s) {
    return s.isEmpty() ? s : s.substring(0, 1).toLowerCase(Locale.ROOT) + s.substring(1);
  }
}
