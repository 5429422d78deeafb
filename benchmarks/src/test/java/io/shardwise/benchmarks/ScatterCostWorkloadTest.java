package io.shardwise.benchmarks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.benchmarks.ScatterCostWorkload.Options;
import io.shardwise.benchmarks.ScatterCostWorkload.Result;
import io.shardwise.benchmarks.ScatterCostWorkload.Shape;
import io.shardwise.benchmarks.ScatterCostWorkload.ShardCountResult;
import io.shardwise.benchmarks.ScatterCostWorkload.Variant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScatterCostWorkloadTest {
  @Test
  void theShardingSphereConfigurationShardsTheTableOverEveryShardAndPlacesKeysAsShardwiseDoes() {
    String yaml = ScatterCostWorkload.shardingSphereYaml(List.of("shard0", "shard1"),
        List.of("jdbc:postgresql://localhost:5433/postgres", "jdbc:postgresql://localhost:5434/it's"));
    assertTrue(yaml.contains("  shard0:\n"), yaml);
    assertTrue(yaml.contains("  shard1:\n"), yaml);
    assertTrue(yaml.contains("jdbcUrl: 'jdbc:postgresql://localhost:5434/it''s'"), yaml);
    assertTrue(yaml.contains("actualDataNodes: shard0.scatter_account,shard1.scatter_account\n"), yaml);
    assertTrue(yaml.contains("shardingColumn: id\n"), yaml);
    assertTrue(yaml.contains("algorithmClassName: " + ShardwisePlacementAlgorithm.class.getName() + "\n"), yaml);
    assertTrue(yaml.contains(ShardwisePlacementAlgorithm.SHARDS + ": shard0,shard1\n"), yaml);
  }

  @Test
  void expectedGroupsCountAndSumEveryLoadedRowByStatus() {
    // ids 1..6: status by id % 3, balance = id
    Map<String, List<Long>> groups = ScatterCostWorkload.expectedGroups(6);
    assertEquals(Map.of("ACTIVE", List.of(2L, 9L), "CLOSED", List.of(2L, 5L), "FROZEN", List.of(2L, 7L)), groups);
  }

  @Test
  void variantSetsNameTheBreakdownOrTheThreeSystemsOfEveryShape() {
    List<Variant> cost = Options.variants("cost");
    assertEquals(Variant.POINT, cost.get(0));
    assertEquals(Variant.SCATTER, cost.get(cost.size() - 1));
    assertFalse(cost.stream().anyMatch(v -> v.shardingSphere));
    List<Variant> peer = Options.variants("peer");
    for (Shape s : Shape.values()) {
      assertTrue(peer.contains(s.hand()) && peer.contains(s.shardwise()), s.name());
      assertEquals(s, s.shardwise().shape);
    }
    assertEquals(List.of(Variant.COUNT_SCATTER, Variant.SCATTER), Options.variants("count_scatter, scatter"));
  }

  @Test
  void theReportGivesEachShapeItsRatioAndVerdict() {
    Map<Variant, Result> results = new EnumMap<>(Variant.class);
    for (Shape s : Shape.values()) {
      results.put(s.hand(), new Result(s.hand(), 1000, 100));
      results.put(s.shardingSphere(), new Result(s.shardingSphere(), 400, 300));
      results.put(s.shardwise(), new Result(s.shardwise(), s == Shape.COUNT ? 300 : 600, 200));
    }
    String report = ScatterCostWorkload.report(Options.parse(new String[0]),
        List.of(new ShardCountResult(2, results)), "17", 1, 1);
    assertTrue(report.contains("| top-N (`order by id desc limit 20`) | 1,000 / 600 / 400 | 100 / 200 / 300 | 0.60x"
        + " | 0.40x | **1.50x** | ahead |"), report);
    assertTrue(report.contains("| `count(*)` | 1,000 / 300 / 400 | 100 / 200 / 300 | 0.30x | 0.40x | **0.75x**"
        + " | behind |"), report);
    assertFalse(report.contains("Per shard, CPU µs"), "no breakdown without the cost variants");
  }
}
