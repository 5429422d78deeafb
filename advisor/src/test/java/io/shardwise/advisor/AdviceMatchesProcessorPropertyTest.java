package io.shardwise.advisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.advisor.JpaModel.Attribute;
import io.shardwise.advisor.JpaModel.DeclaredQuery;
import io.shardwise.advisor.JpaModel.Entity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The property the advice rests on: a query the advisor calls single-shard is one the processor
 * accepts once the proposed annotations are applied, and every other query is one it flags. The
 * SaaS model's proposal, applied by hand exactly as the patch prints it
 * ({@code src/test/resources/saas-annotated}), is compiled with shardwise-processor together with
 * the model's own queries and 400 random ones (joins, implicit joins, IN, OR, keys, ids, other
 * columns, two roots in one FROM); the processor's {@code [QueryWithoutShardKey]} errors must be
 * exactly the queries the advisor did not call single-shard.
 */
class AdviceMatchesProcessorPropertyTest {
  private static final int RANDOM_QUERIES = 400;

  @TempDir
  Path work;

  @Test
  void theProcessorFlagsExactlyTheQueriesTheAdvisorDidNotCallSingleShard() throws IOException {
    Advice advice = ShardKeyAdvisor.advise(List.of(SaasModelTest.TEST_CLASSES), List.of("io.shardwise.advisor.saas"),
        null, null);
    Proposal proposal = advice.best();
    assertEquals("Tenant", proposal.root.name);
    String patch = advice.patch();
    assertTrue(patch.contains("@CoLocated(with = Tenant.class, via = \"task.project.tenant\")"), patch);

    Set<String> queries = new LinkedHashSet<>();
    advice.model.queries().forEach(q -> queries.add(q.text()));
    Random random = new Random(29);
    while (queries.size() < advice.model.queries().size() + RANDOM_QUERIES) {
      queries.add(randomQuery(random, advice.model, proposal));
    }
    QueryJudge judge = new QueryJudge(new ProposedModel(advice.model, proposal));
    Map<String, QueryVerdict> verdicts = new LinkedHashMap<>();
    for (String query : queries) {
      verdicts.put(query, judge.judge(new DeclaredQuery("q", query, false, null), 1));
    }
    Set<String> flagged = flaggedByTheProcessor(queries);

    List<String> disagreements = new ArrayList<>();
    int singleShard = 0;
    for (Map.Entry<String, QueryVerdict> e : verdicts.entrySet()) {
      boolean single = e.getValue().kind() == QueryVerdict.Kind.SINGLE_SHARD;
      singleShard += single ? 1 : 0;
      assertTrue(e.getValue().kind() != QueryVerdict.Kind.NOT_JUDGED, e.getKey() + ": " + e.getValue().reason());
      if (single == flagged.contains(e.getKey())) {
        disagreements.add(e.getValue().kind() + " / " + (flagged.contains(e.getKey()) ? "flagged" : "accepted") + ": "
            + e.getKey());
      }
    }
    assertEquals(List.of(), disagreements);
    assertTrue(singleShard > 50 && queries.size() - singleShard > 50,
        "both kinds well represented: " + singleShard + " single-shard of " + queries.size());
  }

  /** Compiles the annotated model and one holder of every query as named queries; the queries the processor flags. */
  private Set<String> flaggedByTheProcessor(Set<String> queries) throws IOException {
    StringBuilder holder = new StringBuilder("package io.shardwise.advisor.saas;\n\n"
        + "@jakarta.persistence.Entity\n@io.shardwise.annotations.ReferenceTable\n");
    int i = 0;
    for (String query : queries) {
      holder.append("@jakarta.persistence.NamedQuery(name = \"q").append(i++).append("\", query = \"").append(query)
          .append("\")\n");
    }
    holder.append("public class QueryHolder {\n  @jakarta.persistence.Id Long id;\n}\n");
    Path sources = Path.of("src/test/resources/saas-annotated");
    Path holderFile = work.resolve("QueryHolder.java");
    Files.writeString(holderFile, holder);
    List<Path> files = new ArrayList<>(List.of(holderFile));
    try (Stream<Path> walk = Files.walk(sources)) {
      walk.filter(f -> f.toString().endsWith(".java")).forEach(files::add);
    }
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    try (StandardJavaFileManager fileManager = javac.getStandardFileManager(diagnostics, Locale.ROOT,
        StandardCharsets.UTF_8)) {
      List<String> options = List.of("-proc:only", "-Xmaxerrs", "100000", "-Ashardwise.maxErrors=100000", "-processor",
          "io.shardwise.processor.ShardwiseProcessor",
          "-classpath", System.getProperty("java.class.path"), "-d", work.toString());
      javac.getTask(null, fileManager, diagnostics, options, null, fileManager.getJavaFileObjectsFromPaths(files))
          .call();
    }
    Set<String> flagged = new LinkedHashSet<>();
    List<String> otherErrors = new ArrayList<>();
    for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
      String message = d.getMessage(Locale.ROOT);
      if (d.getKind() != Diagnostic.Kind.ERROR) {
        continue;
      }
      boolean matched = false;
      for (String query : queries) {
        if (message.contains("QueryWithoutShardKey") && message.contains("\"" + query + "\"")) {
          flagged.add(query);
          matched = true;
        }
      }
      if (!matched) {
        otherErrors.add(message);
      }
    }
    assertEquals(List.of(), otherErrors, "the annotated model is accepted as the patch gives it");
    return flagged;
  }

  // ---- random queries ------------------------------------------------------------------------------

  static String randomQuery(Random random, JpaModel model, Proposal proposal) {
    List<Entity> entities = new ArrayList<>(model.entities());
    Entity root = entities.get(random.nextInt(entities.size()));
    StringBuilder from = new StringBuilder("select x from " + root.name + " x");
    Map<String, Entity> aliases = new LinkedHashMap<>();
    aliases.put("x", root);
    List<Attribute> toOnes = root.attributes.values().stream().filter(Attribute::owningToOne).toList();
    int shape = random.nextInt(4);
    if (shape == 1 && !toOnes.isEmpty()) {
      Attribute hop = toOnes.get(random.nextInt(toOnes.size()));
      from.append(" join x.").append(hop.name()).append(" y");
      aliases.put("y", model.target(hop));
    } else if (shape == 2) {
      Entity other = entities.get(random.nextInt(entities.size()));
      from.append(", ").append(other.name).append(" y");
      aliases.put("y", other);
    }
    List<String> aliasNames = new ArrayList<>(aliases.keySet());
    String where = predicate(random, model, proposal, aliases, aliasNames, 0);
    if (aliases.size() == 2 && shape == 2 && random.nextBoolean()) {
      String keyX = key(proposal, aliases.get("x"));
      String keyY = key(proposal, aliases.get("y"));
      if (keyX != null && keyY != null) {
        where = "x." + keyX + " = y." + keyY + " and " + where;
      }
    }
    return from + " where " + where;
  }

  private static String predicate(Random random, JpaModel model, Proposal proposal, Map<String, Entity> aliases,
      List<String> aliasNames, int depth) {
    int kind = random.nextInt(depth >= 2 ? 6 : 9);
    if (kind == 6) {
      return predicate(random, model, proposal, aliases, aliasNames, depth + 1) + " and "
          + predicate(random, model, proposal, aliases, aliasNames, depth + 1);
    }
    if (kind == 7) {
      return "(" + predicate(random, model, proposal, aliases, aliasNames, depth + 1) + " or "
          + predicate(random, model, proposal, aliases, aliasNames, depth + 1) + ")";
    }
    if (kind == 8) {
      return predicate(random, model, proposal, aliases, aliasNames, depth + 1) + " and x.id > 0";
    }
    String alias = aliasNames.get(random.nextInt(aliasNames.size()));
    Entity entity = aliases.get(alias);
    String key = key(proposal, entity);
    List<Attribute> toOnes = entity.attributes.values().stream().filter(Attribute::owningToOne).toList();
    List<Attribute> basics = entity.attributes.values().stream()
        .filter(a -> a.kind() == JpaModel.Kind.BASIC).toList();
    String parameter = ":p" + random.nextInt(1000);
    return switch (kind) {
      case 0 -> key != null ? alias + "." + key + " = " + parameter : alias + ".id = " + parameter;
      case 1 -> key != null ? alias + "." + key + " in (" + parameter + ")" : alias + ".id = 7";
      case 2 -> alias + ".id = " + parameter;
      case 3 -> toOnes.isEmpty() ? alias + ".id = " + parameter
          : alias + "." + toOnes.get(random.nextInt(toOnes.size())).name() + ".id = " + parameter;
      case 4 -> {
        if (toOnes.isEmpty()) {
          yield alias + ".id = " + parameter;
        }
        Attribute first = toOnes.get(random.nextInt(toOnes.size()));
        List<Attribute> next = model.target(first).attributes.values().stream().filter(Attribute::owningToOne).toList();
        yield next.isEmpty() ? alias + "." + first.name() + ".id = " + parameter
            : alias + "." + first.name() + "." + next.get(random.nextInt(next.size())).name() + ".id = " + parameter;
      }
      default -> alias + "." + basics.get(random.nextInt(basics.size())).name() + " = " + parameter;
    };
  }

  private static String key(Proposal proposal, Entity entity) {
    Placement placement = proposal.placement(entity);
    return placement != null && placement.sharded() ? placement.keyAttribute() : null;
  }
}
