package io.shardwise.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.JavaFileObject;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The processor on a model written the way multi-tenant applications write theirs
 * (src/test/resources/corpus/realm/model: realms → users → sessions, credentials, role mappings,
 * group memberships; clients → scopes → mappers; components and their config; organizations and
 * domains; tenant deletes by subquery; lookups by a non-key unique name), with every named query
 * labelled on its line: {@code // pins} (routes by the realm, or needs no key), {@code // lacks}
 * (must be reported) or {@code // scatter} (reads every shard on purpose, marked
 * {@code @ScatterGather}). The confusion matrix must have no false negative and no false positive.
 */
class RealModelCorpusTest {

  private static final Pattern LABELLED =
      Pattern.compile("@Named(Native)?Query\\(name = \"([^\"]+)\".*// (pins|lacks|scatter|unchecked)\\s*$");
  private static final List<Tag> QUERY_TAGS =
      List.of(Tag.QueryWithoutShardKey, Tag.UnresolvedEntity, Tag.InsertWithoutShardKey);

  private record Labelled(String file, long line, String name, String label, boolean nativeSql) {}

  private static Map<String, String> sources;
  private static List<Labelled> queries;

  @BeforeAll
  static void readCorpus() throws IOException, URISyntaxException {
    Path root = Path.of(RealModelCorpusTest.class.getResource("/corpus/realm/model").toURI());
    sources = new TreeMap<>();
    try (Stream<Path> files = Files.list(root)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        sources.put("realm/model/" + file.getFileName(), Files.readString(file));
      }
    }
    queries = new ArrayList<>();
    sources.forEach((path, text) -> {
      String[] lines = text.split("\n", -1);
      for (int i = 0; i < lines.length; i++) {
        Matcher m = LABELLED.matcher(lines[i]);
        if (m.find()) {
          queries.add(new Labelled(path, i + 1, m.group(2), m.group(3), m.group(1) != null));
        }
      }
    });
  }

  private static Compilation compile(Map<String, String> corpus) {
    Compilation c = new Compilation();
    corpus.forEach(c::source);
    return c.option("-Ashardwise.maxErrors=100000").option("-Xmaxerrs").option("100000")
        .compileWith(new ShardwiseProcessor());
  }

  /** Whether any error of a query tag sits on the query's line. */
  private static boolean flagged(Compilation c, Labelled query) {
    return c.errors().stream().anyMatch(d -> on(d, query.file(), query.line())
        && QUERY_TAGS.stream().anyMatch(t -> d.getMessage(Locale.ROOT).startsWith(t.bracketed())));
  }

  private static boolean on(Diagnostic<? extends JavaFileObject> d, String file, long line) {
    return d.getSource() != null && d.getSource().getName().endsWith(file) && d.getLineNumber() == line;
  }

  @Test
  void theConfusionMatrixHasNoFalseNegativeAndNoFalsePositive() {
    Compilation c = compile(sources);
    for (Diagnostic<? extends JavaFileObject> d : c.errors()) {
      assertTrue(queries.stream().anyMatch(q -> on(d, q.file(), q.line())),
          "an error off every labelled query line (the model itself must be clean): " + d);
    }
    List<Labelled> judged = queries.stream().filter(q -> !q.label().equals("unchecked")).toList();
    int[] hql = matrix(c, judged.stream().filter(q -> !q.nativeSql()).toList(), "HQL");
    int[] sql = matrix(c, judged.stream().filter(Labelled::nativeSql).toList(), "native SQL");
    assertTrue(queries.size() >= 150, "the corpus has " + queries.size() + " queries");
    assertTrue(sql[0] + sql[1] + sql[2] + sql[3] >= 35, "native queries: " + Arrays.toString(sql));
    for (Labelled query : queries) {
      if (query.label().equals("unchecked")) {
        assertTrue(c.warnings(Tag.NativeQueryUnchecked).stream().anyMatch(d -> on(d, query.file(), query.line())),
            query + " is named as unreadable\n" + c.dump());
        assertFalse(flagged(c, query), query + " is not an error");
      }
    }
    assertEquals(0, hql[2], "HQL false negatives");
    assertEquals(0, hql[3], "HQL false positives\n" + c.dump());
    assertEquals(0, sql[2], "native false negatives");
  }

  /**
   * Prints and checks the confusion matrix of some labelled queries: {TP, TN, FN, FP}. No false
   * negative and no false positive anywhere.
   */
  private static int[] matrix(Compilation c, List<Labelled> labelled, String kind) {
    List<String> falseNegatives = new ArrayList<>();
    List<String> falsePositives = new ArrayList<>();
    int truePositives = 0;
    int trueNegatives = 0;
    for (Labelled query : labelled) {
      boolean positive = query.label().equals("lacks");
      boolean reported = flagged(c, query);
      if (positive && reported) {
        truePositives++;
      } else if (positive) {
        falseNegatives.add(query.name());
      } else if (reported) {
        falsePositives.add(query.name());
      } else {
        trueNegatives++;
      }
    }
    Map<String, Long> byLabel = labelled.stream()
        .collect(Collectors.groupingBy(Labelled::label, TreeMap::new, Collectors.counting()));
    System.out.printf("Real-model corpus, %s: %d queries %s; reported %d of %d lacking the key (TP),"
            + " passed %d of %d pinned or marked (TN); FN %d %s, FP %d %s%n", kind, labelled.size(), byLabel,
        truePositives, byLabel.getOrDefault("lacks", 0L), trueNegatives,
        byLabel.getOrDefault("pins", 0L) + byLabel.getOrDefault("scatter", 0L), falseNegatives.size(),
        falseNegatives, falsePositives.size(), falsePositives);
    assertEquals(List.of(), falseNegatives, kind + " false negatives");
    assertEquals(List.of(), falsePositives, kind + " false positives\n" + c.dump());
    return new int[] {truePositives, trueNegatives, falseNegatives.size(), falsePositives.size()};
  }

  /**
   * The labels themselves are checked: with the {@code @ScatterGather} marks taken out, every
   * query labelled scatter is reported (it really reads every shard), and nothing else changes.
   */
  @Test
  void theScatterLabelsNameQueriesThatReadEveryShard() {
    Map<String, String> unmarked = new TreeMap<>();
    sources.forEach((path, text) -> unmarked.put(path, text.replaceAll(
        "(?m)^@ScatterGather\\(queries = [^\\n]*\\)$", "")));
    Compilation c = compile(unmarked);
    for (Labelled query : queries) {
      if (query.label().equals("unchecked")) {
        continue;
      }
      boolean expected = !query.label().equals("pins");
      assertEquals(expected, flagged(c, query), query + "\n" + c.dump());
    }
  }
}
