package io.shardwise.processor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * javac prints at most 100 errors (-Xmaxerrs); a module with more unpinned queries than that must
 * still see every one of them: the first ones on their lines, one summary error naming the report,
 * and the report listing all of them with file and line.
 */
class EveryErrorShownTest {

  private static final int QUERIES = 130;

  private static Compilation compileUnpinned(String... options) {
    StringBuilder source = new StringBuilder("""
        package app;
        import org.hibernate.annotations.processing.HQL;
        import java.util.List;
        interface Queries {
        """);
    for (int i = 0; i < QUERIES; i++) {
      source.append("  @HQL(\"from PurchaseOrder o where o.status = 'S").append(i)
          .append("'\") List<Object> q").append(i).append("();\n");
    }
    source.append("}\n");
    Compilation compilation = Fixtures.model().source("app/Queries.java", source.toString());
    for (String option : options) {
      compilation.option(option);
    }
    return compilation.compileWith(new ShardwiseProcessor());
  }

  @Test
  void pastTheLimitOneSummaryErrorNamesTheReportThatListsEveryError() throws IOException {
    Compilation c = compileUnpinned();
    assertFalse(c.succeeded());
    assertEquals(Reporter.DEFAULT_SHOWN, c.errors(Tag.QueryWithoutShardKey).size(), c.dump());
    assertEquals(1, c.errors(Tag.TooManyErrors).size(), c.dump());
    c.assertErrorCount(Reporter.DEFAULT_SHOWN + 1);
    for (int i = 0; i < Reporter.DEFAULT_SHOWN; i++) {
      c.assertError(Tag.QueryWithoutShardKey, "app/Queries.java", "'S" + i + "'\")");
    }
    String summary = c.errors(Tag.TooManyErrors).get(0).getMessage(Locale.ROOT);
    Path report = c.output(Reporter.REPORT);
    assertTrue(summary.contains("more than " + Reporter.DEFAULT_SHOWN + " errors"), summary);
    assertTrue(summary.contains(report.toString()), summary);
    assertTrue(summary.contains("-Ashardwise.maxErrors"), summary);

    List<String> lines = Files.readAllLines(report);
    assertEquals("# " + QUERIES + " Shardwise errors; " + Reporter.DEFAULT_SHOWN
        + " were printed by javac, all are listed here.", lines.get(0));
    List<String> errors = lines.stream().filter(line -> !line.startsWith("#"))
        .collect(Collectors.toList());
    assertEquals(QUERIES, errors.size(), String.join("\n", lines));
    for (int i = 0; i < QUERIES; i++) {
      String line = errors.get(i);
      // the interface's first query is on line 5 of Queries.java
      assertTrue(line.contains("Queries.java:" + (5 + i) + ": error: [QueryWithoutShardKey]"), line);
      assertTrue(line.contains("'S" + i + "'"), line);
    }
  }

  @Test
  void theLimitIsAnOptionAndBelowItNothingIsHeldBack() {
    Compilation raised = compileUnpinned("-Ashardwise.maxErrors=500", "-Xmaxerrs", "1000");
    raised.assertErrorCount(QUERIES);
    assertTrue(raised.errors(Tag.TooManyErrors).isEmpty(), raised.dump());
    assertFalse(Files.exists(raised.output(Reporter.REPORT)), "no report when every error was printed");

    Compilation bad = compileUnpinned("-Ashardwise.maxErrors=many");
    assertTrue(bad.dump().contains("-Ashardwise.maxErrors=many is not understood"), bad.dump());
  }
}
