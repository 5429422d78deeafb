package io.shardwise.advisor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cost of advising on a large model without a database: 250 entities (one account root, 229
 * entities in a tree of to-one associations below it, 20 lookup tables) and 2,000 named queries,
 * generated, compiled, then advised. Prints the time (docs/adopting.md quotes it); asserts only what
 * the advice must say, never a time, since the machine is shared.
 */
class LargeModelCostTest {
  static final int TREE = 229;
  static final int LOOKUPS = 20;

  @TempDir
  static Path work;

  @Test
  void advisesOnTwoHundredFiftyEntitiesAndTwoThousandQueries() throws IOException {
    Path sources = work.resolve("src/big");
    Files.createDirectories(sources);
    Random random = new Random(250);
    write(sources, "Account", "accounts", "", List.of(
        "select a from Account a where a.id = :id", "select a from Account a where a.name = :name"));
    for (int i = 0; i < LOOKUPS; i++) {
      write(sources, "Lookup" + i, "lookup_" + i, "", List.of("select l from Lookup" + i + " l"));
    }
    int queries = 2 + LOOKUPS;
    for (int i = 0; i < TREE; i++) {
      String parent = i < 10 ? "Account" : "Node" + random.nextInt(i);
      String fields = "  @jakarta.persistence.ManyToOne(optional = false) " + parent + " parent;\n"
          + "  @jakarta.persistence.ManyToOne Lookup" + random.nextInt(LOOKUPS) + " kind;\n";
      int count = i < 146 ? 9 : 8;
      String self = "Node" + i;
      List<String> named = List.of(
          "select n from " + self + " n where n.parent.id = :parentId",
          "select n from " + self + " n where n.id = :id",
          "select n from " + self + " n where n.label = :label",
          "select n from " + self + " n join n.parent p where p.id = :parentId and n.label = :label",
          "select count(n) from " + self + " n where n.label = :label",
          "select n from " + self + " n where n.id in (:ids)",
          "select n from " + self + " n where n.parent.id = :a or n.parent.id = :b",
          "select n from " + self + " n where n.kind.id = :kind",
          "select n from " + self + " n where n.label like :text");
      write(sources, self, "node_" + i, fields, named.subList(0, count));
      queries += count;
    }
    assertEquals(2000, queries);
    Path classes = work.resolve("classes");
    Sources.compile(sources, classes);

    OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpuBefore = os.getProcessCpuTime();
    Advice advice = ShardKeyAdvisor.advise(List.of(classes), List.of("big"), null, null);
    double cpuSeconds = (os.getProcessCpuTime() - cpuBefore) / 1e9;
    assertEquals("Account", advice.bestRoot());
    assertEquals(250, advice.model.entities().size());
    assertEquals(2000, advice.model.queries().size());
    Proposal best = advice.best();
    assertEquals(TREE, best.count(Placement.Kind.CO_LOCATED));
    assertEquals(LOOKUPS, best.count(Placement.Kind.REFERENCE));
    // single-shard: Account by id, the 20 lookups' lists, and 3 queries of each of the 10 direct children
    // (by parent id, joined to the parent by its id, parent id OR parent id); the rest need the key
    assertEquals(51.0 / 2000, best.singleShardShare, 1e-9);
    System.out.printf("LargeModelCostTest: 250 entities, 2000 queries, %d candidates judged: %.2f s wall, %.2f s"
        + " CPU of this JVM (every thread: parser, JIT, GC), load average %.1f on %d cores%n",
        advice.ranked.size(), advice.elapsedSeconds(), cpuSeconds, os.getSystemLoadAverage(),
        os.getAvailableProcessors());
  }

  private static void write(Path dir, String name, String table, String fields, List<String> queries)
      throws IOException {
    StringBuilder source = new StringBuilder("package big;\n\n@jakarta.persistence.Entity\n@jakarta.persistence.Table(name = \"")
        .append(table).append("\")\n");
    for (int q = 0; q < queries.size(); q++) {
      source.append("@jakarta.persistence.NamedQuery(name = \"").append(name).append('.').append(q)
          .append("\", query = \"").append(queries.get(q)).append("\")\n");
    }
    source.append("public class ").append(name).append(" {\n  @jakarta.persistence.Id Long id;\n  String ")
        .append(name.equals("Account") ? "name" : "label").append(";\n").append(fields).append("}\n");
    Files.writeString(dir.resolve(name + ".java"), source);
  }
}
