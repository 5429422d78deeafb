package io.shardwise.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class WorkloadsTest {
  private static final String BEGIN = "<!-- W:begin -->";
  private static final String END = "<!-- W:end -->";

  @Test
  void percentilesAreNearestRank() {
    long[] sorted = {10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
    assertEquals(50, Workloads.percentile(sorted, 0.50));
    assertEquals(100, Workloads.percentile(sorted, 0.99));
    assertEquals(10, Workloads.percentile(sorted, 0.0));
    assertTrue(Double.isNaN(Workloads.percentile(new long[0], 0.5)));
  }

  @Test
  void longListsGrowPastTheirFirstArrayAndSortACopy() {
    LongList a = new LongList();
    for (long v = 3000; v > 0; v--) {
      a.add(v);
    }
    LongList b = new LongList();
    b.addAll(new long[] {0, 5000});
    b.addAll(a);
    long[] sorted = b.sorted();
    assertEquals(3002, b.size());
    assertEquals(0, sorted[0]);
    assertEquals(5000, sorted[3001]);
    assertEquals(1500, Workloads.percentile(sorted, 0.5));
    assertEquals(1, a.sorted()[0]);
  }

  @Test
  void millisecondsOfNanosecondsKeepNaN() {
    assertEquals(1.5, Workloads.ms(1_500_000));
    assertTrue(Double.isNaN(Workloads.ms(Workloads.percentile(new long[0], 0.99))));
  }

  @Test
  void aSectionIsAppendedOnceThenReplacedBetweenItsMarkersLeavingNotesAlone(@TempDir Path dir) throws IOException {
    Path docs = dir.resolve("benchmarks.md");
    Files.writeString(docs, "# Benchmarks\n\n## Other\n\ntext\n");

    Workloads.writeSection(docs, "## Mine", BEGIN, END, "How to run.", BEGIN + "\n| run 1 |\n" + END + "\n");
    Files.writeString(docs, Files.readString(docs) + "\nA note written by hand.\n");
    Workloads.writeSection(docs, "## Mine", BEGIN, END, "How to run.", BEGIN + "\n| run 2 |\n" + END + "\n");
    Workloads.writeSection(docs, "## Mine", BEGIN, END, "How to run.", BEGIN + "\n| run 2 |\n" + END + "\n");

    assertEquals("# Benchmarks\n\n## Other\n\ntext\n\n## Mine\n\nHow to run.\n" + BEGIN + "\n| run 2 |\n" + END
        + "\n\nA note written by hand.\n", Files.readString(docs));
  }

  @Test
  void aSectionWithoutMarkersIsNotOverwritten(@TempDir Path dir) throws IOException {
    Path docs = dir.resolve("benchmarks.md");
    Files.writeString(docs, "## Mine\n\nhand-written\n");
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> Workloads.writeSection(docs, "## Mine", BEGIN, END, "", BEGIN + "\nx\n" + END));
    assertTrue(e.getMessage().contains("without the markers"), e.getMessage());
  }
}
