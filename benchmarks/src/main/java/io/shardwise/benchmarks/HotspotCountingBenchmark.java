package io.shardwise.benchmarks;

import io.shardwise.hibernate.ShardRoute;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import java.util.concurrent.TimeUnit;
import org.hibernate.SessionFactory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What hotspot counting adds to routing a session by key: {@code ShardedSessions.forKey(long)} on
 * two session factories over the same two shards, one with {@code shardwise.hotspots.enabled =
 * false} (the baseline: the routing path calls a do-nothing recorder) and one counting (the
 * default: one atomic add on a striped per-bucket counter, and one key in 64 offered to the
 * hot-key summary). The difference of the two is the counter's cost per routed session. No session
 * is opened: {@code forKey} is where routing and counting happen.
 *
 * <p>{@code spread} cycles through 4096 random keys; {@code oneHotKey} routes the same key every
 * time (one counter cell, and the summary's slot for that key). Run with one and with two threads
 * ({@code -t 2}) to see the stripes at work.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -jar benchmarks/target/benchmarks.jar HotspotCounting -f 1 -wi 3 -i 5 -w 1 -r 1
 * </pre>
 *
 * On a loaded machine JMH's sequential runs are too noisy for a few nanoseconds; {@link #main}
 * measures the same two paths in one process in alternating rounds, reporting the median wall
 * time and the median thread CPU time per routed session of each, and their difference:
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.HotspotCountingBenchmark 31 2000000
 * </pre>
 *
 * Results are recorded in {@code docs/benchmarks.md}, section "Hotspot counting".
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class HotspotCountingBenchmark {
  private static final int KEYS = 4096;

  /** The topology and both session factories, shared by all threads. */
  @State(Scope.Benchmark)
  public static class Factories {
    PostgresTopology topology;
    SessionFactory counted;
    SessionFactory uncounted;
    ShardedSessions countedShards;
    ShardedSessions uncountedShards;

    @Setup(Level.Trial)
    public void start() {
      topology = PostgresTopology.builder().shards(2).start();
      counted = factory(true);
      uncounted = factory(false);
      countedShards = ShardedSessions.of(counted);
      uncountedShards = ShardedSessions.of(uncounted);
    }

    private SessionFactory factory(boolean counting) {
      Shardwise.Builder b = Shardwise.configure().credentials("postgres", null).entities(Customer.class)
          .property("shardwise.hotspots.enabled", Boolean.toString(counting));
      for (PostgresShard shard : topology.shards()) {
        b.shard("shard" + shard.index(), shard.primary().jdbcUrl());
      }
      return b.buildSessionFactory();
    }

    @TearDown(Level.Trial)
    public void stop() {
      counted.close();
      uncounted.close();
      topology.close();
    }
  }

  /** Each thread's own cycle of keys. */
  @State(Scope.Thread)
  public static class Keys {
    long[] keys;
    int next;

    @Setup(Level.Trial)
    public void keys() {
      java.util.SplittableRandom random = new java.util.SplittableRandom(Thread.currentThread().getId());
      keys = new long[KEYS];
      for (int i = 0; i < KEYS; i++) {
        keys[i] = random.nextLong(1, 1L << 40);
      }
    }

    long nextKey() {
      next = (next + 1) & (KEYS - 1);
      return keys[next];
    }
  }

  @Benchmark
  public ShardRoute spreadUncounted(Factories f, Keys k) {
    return f.uncountedShards.forKey(k.nextKey());
  }

  @Benchmark
  public ShardRoute spreadCounted(Factories f, Keys k) {
    return f.countedShards.forKey(k.nextKey());
  }

  @Benchmark
  public ShardRoute oneHotKeyUncounted(Factories f) {
    return f.uncountedShards.forKey(42L);
  }

  @Benchmark
  public ShardRoute oneHotKeyCounted(Factories f) {
    return f.countedShards.forKey(42L);
  }

  /**
   * Alternating rounds: {@code args[0]} rounds (default 31) of {@code args[1]} routed sessions
   * (default 2,000,000) on the uncounted factory, then on the counted one, keys spread over 4096.
   */
  public static void main(String[] args) {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 31;
    int perRound = args.length > 1 ? Integer.parseInt(args[1]) : 2_000_000;
    Factories f = new Factories();
    f.start();
    try {
      Keys keys = new Keys();
      keys.keys();
      java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
      double[][] wall = new double[2][rounds];
      double[][] cpuPerOp = new double[2][rounds];
      long sink = 0;
      for (int r = -5; r < rounds; r++) {
        for (int subject = 0; subject < 2; subject++) {
          ShardedSessions shards = subject == 0 ? f.uncountedShards : f.countedShards;
          long cpu0 = cpu.getCurrentThreadCpuTime();
          long t0 = System.nanoTime();
          for (int i = 0; i < perRound; i++) {
            sink += shards.forKey(keys.nextKey()).shardId().length();
          }
          long t1 = System.nanoTime();
          long cpu1 = cpu.getCurrentThreadCpuTime();
          if (r >= 0) {
            wall[subject][r] = (double) (t1 - t0) / perRound;
            cpuPerOp[subject][r] = (double) (cpu1 - cpu0) / perRound;
          }
        }
      }
      System.out.printf("rounds %d x %,d routed sessions each, alternating; sink %d%n", rounds, perRound, sink);
      System.out.printf("%-10s %14s %14s%n", "", "wall ns/op", "cpu ns/op");
      System.out.printf("%-10s %14.1f %14.1f%n", "uncounted", median(wall[0]), median(cpuPerOp[0]));
      System.out.printf("%-10s %14.1f %14.1f%n", "counted", median(wall[1]), median(cpuPerOp[1]));
      System.out.printf("%-10s %14.1f %14.1f%n", "added", median(wall[1]) - median(wall[0]),
          median(cpuPerOp[1]) - median(cpuPerOp[0]));
      System.out.printf("%-10s %14.3f %14.3f%n", "ratio", median(wall[1]) / median(wall[0]),
          median(cpuPerOp[1]) / median(cpuPerOp[0]));
    } finally {
      f.stop();
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
