package io.shardwise.benchmarks;

import io.shardwise.hibernate.routing.BucketStrategy;
import io.shardwise.hibernate.routing.ConsistentHashRing;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardingStrategy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Key → shard routing: the cost of finding the shard of one key, for each strategy, beside a
 * baseline that does the least any router must ({@code Long.hashCode(key) % n} into an array).
 *
 * <p>{@code strategy} picks the subject: {@code baseline}, {@code bucket} (1024 buckets over 8
 * shards), or {@code ring100}/{@code ring256}/{@code ring1000} (8 shards with that many virtual
 * nodes each). {@code longKey} routes a {@code long}, {@code stringKey} a String of about 20 chars
 * ("tenant-" and a number). Keys cycle through 4096 precomputed values so that the branch
 * predictor cannot learn a single key.
 *
 * <p>Run from the repository root:
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -jar benchmarks/target/benchmarks.jar KeyToShard -f 1 -wi 2 -i 3
 * </pre>
 *
 * Results are recorded in {@code docs/benchmarks.md}, section "Key → shard routing".
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class KeyToShardBenchmark {
  private static final int SHARDS = 8;
  private static final int KEYS = 4096;

  @Param({"baseline", "bucket", "ring100", "ring256", "ring1000"})
  public String strategy;

  private ShardingStrategy router;
  private long[] longKeys;
  private String[] stringKeys;
  private int next;

  @Setup
  public void setUp() {
    List<ShardDescriptor> shards = new ArrayList<>();
    for (int i = 0; i < SHARDS; i++) {
      shards.add(ShardDescriptor.of("shard-" + i, "jdbc:postgresql://db" + i + "/app"));
    }
    ShardMap map = ShardMap.evenlyAssigned(1, shards, ShardMap.DEFAULT_BUCKETS);
    router = switch (strategy) {
      case "baseline" -> new ModuloBaseline(map.shards().keySet().toArray(String[]::new));
      case "bucket" -> new BucketStrategy(map);
      case "ring100" -> new ConsistentHashRing(shards, 100);
      case "ring256" -> new ConsistentHashRing(shards, 256);
      case "ring1000" -> new ConsistentHashRing(shards, 1000);
      default -> throw new IllegalArgumentException("Unknown strategy parameter '" + strategy + "'");
    };
    java.util.SplittableRandom random = new java.util.SplittableRandom(42);
    longKeys = new long[KEYS];
    stringKeys = new String[KEYS];
    for (int i = 0; i < KEYS; i++) {
      longKeys[i] = random.nextLong(1, 1L << 40);
      stringKeys[i] = "tenant-" + random.nextLong(1, 1L << 40);
    }
  }

  @Benchmark
  public String longKey() {
    long key = longKeys[next++ & (KEYS - 1)];
    return router.shardFor(key);
  }

  @Benchmark
  public String stringKey() {
    String key = stringKeys[next++ & (KEYS - 1)];
    return router.shardFor(key);
  }

  /**
   * The least a router can do: Java's own hash modulo the shard count, into an array. Not usable
   * for real routing (not stable across languages, not computable by PostgreSQL, moves almost every
   * key when a shard is added); it is the yardstick. Implemented as a strategy so that every
   * subject pays the same interface call.
   */
  static final class ModuloBaseline implements ShardingStrategy {
    private final String[] shards;

    ModuloBaseline(String[] shards) {
      this.shards = shards;
    }

    @Override
    public String shardFor(long key) {
      return shards[Math.floorMod(Long.hashCode(key), shards.length)];
    }

    @Override
    public String shardFor(Object key) {
      return shards[Math.floorMod(key.hashCode(), shards.length)];
    }

    @Override
    public java.util.Collection<String> shards() {
      return List.of(shards);
    }
  }
}
