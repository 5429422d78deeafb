package io.shardwise.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.benchmarks.ScatterSweepWorkload.Options;
import io.shardwise.benchmarks.ScatterSweepWorkload.Result;
import io.shardwise.benchmarks.ScatterSweepWorkload.Sweep;
import io.shardwise.benchmarks.ScatterSweepWorkload.Variant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScatterSweepWorkloadTest {
  @Test
  void theSlopeIsTheLeastSquaresLineThroughTheShardCounts() {
    assertEquals(2.0, ScatterSweepWorkload.slope(new int[] {1, 8, 32}, new double[] {12, 26, 74}), 1e-9);
    assertEquals(0.0, ScatterSweepWorkload.slope(new int[] {1, 64}, new double[] {5, 5}), 1e-9);
  }

  @Test
  void theReportGivesEachShardCountItsPartAgainstTheBareQueryAndTheThreads() {
    List<Sweep> sweeps = List.of(sweep(1, 100, 150, 20), sweep(8, 800, 1200, 30));
    String report = ScatterSweepWorkload.report(Options.parse(new String[] {"chart=none"}), sweeps, "17", 1, 2);
    // the bare query on connections with Shardwise's deadlines: 1.2× the untimed one here
    assertTrue(report.contains("| 1 | 150.0 | 100.0 | 1.50× | 120.0 | 1.25× | 20 (20) |"), report);
    assertTrue(report.contains("| 8 | 150.0 | 100.0 | 1.50× | 120.0 | 1.25× | 30 (30) |"), report);
    assertTrue(report.contains("| `count` | 150.0 |"), "slope of 150 → 1200 over 1 → 8 shards: " + report);
    assertTrue(report.startsWith(ScatterSweepWorkload.BEGIN) && report.strip().endsWith(ScatterSweepWorkload.END));
    String svg = ScatterSweepWorkload.svg(sweeps);
    assertTrue(svg.startsWith("<svg") && svg.contains("<polyline") && svg.strip().endsWith("</svg>"), svg);
  }

  @Test
  void withPartsTheReportGivesEachScalarPartAgainstItsBareQueryInItsOwnSection() {
    Options options = Options.parse(new String[] {"parts=true"});
    Map<Variant, Result> results = new EnumMap<>(Variant.class);
    for (Variant v : Variant.of(options)) {
      double cpu = switch (v) {
        case BARE_STATUS_COUNT, BARE_TOP_PROJECTION -> 800;
        case STATUS_COUNT, TOP_PROJECTION -> 1000;
        default -> 1600;
      };
      results.put(v, new Result(1, 2, cpu, 1024, cpu));
    }
    assertTrue(results.keySet().stream().allMatch(v -> v.parts), results.toString());
    String report = ScatterSweepWorkload.report(options, List.of(new Sweep(8, results, 30, 30)), "17", 1, 2);
    assertTrue(report.contains("| 8 | parameterized `count` | 100.0 | 125.0 (1.25×) | 200.0 (2.00×) |"), report);
    assertTrue(report.contains("| 8 | top-20 projection | 100.0 | 125.0 (1.25×) | 200.0 (2.00×) |"), report);
    assertTrue(report.startsWith(ScatterSweepWorkload.PARTS_BEGIN)
        && report.strip().endsWith(ScatterSweepWorkload.PARTS_END), report);
    assertTrue(!report.contains("slope"), report);
  }

  @Test
  void variantsSelectsSomeQueriesAndKeepsTheirReportOutOfTheDocs() {
    Options options = Options.parse(new String[] {"variants=count,bare_count", "docs=none", "chart=none"});
    assertEquals(List.of(Variant.BARE_COUNT, Variant.COUNT), List.of(Variant.of(options)));
    Map<Variant, Result> countOnly = new EnumMap<>(Variant.class);
    countOnly.put(Variant.COUNT, new Result(1, 2, 1600, 1024, 800));
    String report = ScatterSweepWorkload.report(Options.parse(new String[] {"variants=count", "docs=none",
        "chart=none"}), List.of(new Sweep(8, countOnly, 30, 30)), "17", 1, 2);
    assertTrue(report.contains("| `count` | 8 |") && !report.contains("| 8 | 200.0 |"),
        "no ratio without the bare query: " + report);
    IllegalArgumentException intoDocs = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> Options.parse(new String[] {"variants=count"}));
    assertTrue(intoDocs.getMessage().contains("docs=none chart=none"), intoDocs.getMessage());
  }

  private static Sweep sweep(int shards, double bare, double count, int threads) {
    Map<Variant, Result> results = new EnumMap<>(Variant.class);
    for (Variant v : Variant.of(Options.parse(new String[0]))) {
      double cpu = v == Variant.BARE_COUNT ? bare : v == Variant.BARE_COUNT_TIMED ? 1.2 * bare
          : v == Variant.COUNT ? count : 10 * shards;
      results.put(v, new Result(1, 2, cpu, 1024, cpu / 2));
    }
    return new Sweep(shards, results, threads, threads);
  }
}
