package io.shardwise.benchmarks;

import io.shardwise.hibernate.id.Snowflake;
import io.shardwise.hibernate.id.SnowflakeLayout;
import io.shardwise.hibernate.routing.BucketStrategy;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The cost of a new root's id: {@code Snowflake.nextIdMatching} drawing ids until one routes (by
 * the bucket strategy, 1024 buckets) to the shard chosen for the root, the shards taken in turn.
 * {@code defaultLayout} is the 41/10/12 layout, whose 4096 ids per millisecond are shared by the
 * draws; {@code wideSequence} (18 sequence bits) shows the cost of the draws themselves.
 *
 * <p>Run: {@code mvn -B -q -pl benchmarks -am package -DskipTests && java -jar
 * benchmarks/target/benchmarks.jar NewRootId -f 1 -wi 2 -i 3 -w 1 -r 1}; {@code main} instead
 * prints the mean number of draws per id, counted over 100,000 ids.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class NewRootIdBenchmark {

  @Param({"3", "32"})
  public int shards;

  private BucketStrategy routing;
  private String[] shardIds;
  private Snowflake defaultLayout;
  private Snowflake wideSequence;
  private int next;

  @Setup
  public void setUp() {
    List<ShardDescriptor> descriptors = new ArrayList<>();
    for (int i = 0; i < shards; i++) {
      descriptors.add(ShardDescriptor.of("shard-" + i, "jdbc:postgresql://db" + i + "/app"));
    }
    ShardMap map = ShardMap.evenlyAssigned(1, descriptors, ShardMap.DEFAULT_BUCKETS);
    routing = new BucketStrategy(map);
    shardIds = map.shards().keySet().toArray(String[]::new);
    defaultLayout = Snowflake.builder(SnowflakeLayout.DEFAULT).workerId(3).build();
    wideSequence = Snowflake.builder(SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 4, 18)).workerId(3).build();
  }

  @Benchmark
  public long defaultLayout() {
    String target = shardIds[next++ % shardIds.length];
    return defaultLayout.nextIdMatching(id -> target.equals(routing.shardFor(id)), 65_536);
  }

  @Benchmark
  public long wideSequence() {
    String target = shardIds[next++ % shardIds.length];
    return wideSequence.nextIdMatching(id -> target.equals(routing.shardFor(id)), 65_536);
  }

  /** Mean draws per routed id, for 3 and 32 shards (expected: about the shard count). */
  public static void main(String[] args) {
    for (int count : new int[] {3, 32}) {
      NewRootIdBenchmark b = new NewRootIdBenchmark();
      b.shards = count;
      b.setUp();
      long[] draws = new long[1];
      int ids = 100_000;
      long start = System.nanoTime();
      for (int i = 0; i < ids; i++) {
        String target = b.shardIds[i % count];
        b.wideSequence.nextIdMatching(id -> {
          draws[0]++;
          return target.equals(b.routing.shardFor(id));
        }, 65_536);
      }
      long elapsed = System.nanoTime() - start;
      System.out.printf("%d shards: %.2f draws per id, %d ns per id (wide sequence, loop incl. warm-up)%n", count,
          (double) draws[0] / ids, elapsed / ids);
    }
  }
}
