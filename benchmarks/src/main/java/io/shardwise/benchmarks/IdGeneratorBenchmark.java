package io.shardwise.benchmarks;

import com.github.f4b6a3.tsid.TsidFactory;
import io.shardwise.hibernate.id.Snowflake;
import io.shardwise.hibernate.id.SnowflakeLayout;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.apache.shardingsphere.infra.algorithm.keygen.snowflake.SnowflakeKeyGenerateAlgorithm;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Id generation throughput: Shardwise's {@link Snowflake} against ShardingSphere's
 * {@code SnowflakeKeyGenerateAlgorithm}, tsid-creator, {@link UUID#randomUUID()} and a UUIDv7, all
 * in the same run, single-threaded and with 2 and 4 threads sharing one generator.
 *
 * <p>Two Shardwise variants: {@code shardwiseDefaultLayout} (12 sequence bits, so capped at the
 * layout's 4.096 M ids/s per worker, like every 41/10/12 Snowflake) and {@code
 * shardwiseWideSequence} (18 sequence bits, so the cost of one id, not the layout, is measured).
 *
 * <p>Run (prints a Markdown table with ratios against {@code UUID.randomUUID()}):
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am compile dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
 * java -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) io.shardwise.benchmarks.IdGeneratorBenchmark
 * </pre>
 *
 * Any arguments are passed to JMH's own command line instead ({@code org.openjdk.jmh.Main}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class IdGeneratorBenchmark {

  private Snowflake shardwiseDefault;
  private Snowflake shardwiseWide;
  private Snowflake shardwiseTicking;
  private SnowflakeKeyGenerateAlgorithm shardingSphere;
  private TsidFactory tsid;

  @Setup
  public void setUp() {
    shardwiseDefault = Snowflake.builder(SnowflakeLayout.DEFAULT).workerId(1).build();
    shardwiseWide = Snowflake.builder(SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 4, 18)).workerId(1).build();
    shardwiseTicking = Snowflake.builder(SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 4, 18)).workerId(2)
        .clock(io.shardwise.hibernate.id.Clock.ticking()).build();
    shardingSphere = new SnowflakeKeyGenerateAlgorithm();
    shardingSphere.init(new Properties()); // reads max-vibration-offset / max-tolerate-time-difference-milliseconds
    tsid = TsidFactory.builder().withNode(1).build();
  }

  @Benchmark
  public long shardwiseDefaultLayout() {
    return shardwiseDefault.nextId();
  }

  @Benchmark
  public long shardwiseWideSequence() {
    return shardwiseWide.nextId();
  }

  /** The wide layout with {@code Clock.ticking()}: no clock call per id (fixed worker ids only). */
  @Benchmark
  public long shardwiseTickingClock() {
    return shardwiseTicking.nextId();
  }

  /** ShardingSphere's public entry point; it allocates a one-element list per call. */
  @Benchmark
  public Collection<Long> shardingSphereSnowflake() {
    return shardingSphere.generateKeys(null, 1);
  }

  @Benchmark
  public long tsidCreator() {
    return tsid.create().toLong();
  }

  /** Not an id: the clock read every Snowflake/TSID/UUIDv7 call pays, for scale. */
  @Benchmark
  public long clockReadOnly() {
    return System.currentTimeMillis();
  }

  @Benchmark
  public UUID uuidV4() {
    return UUID.randomUUID();
  }

  @Benchmark
  public UUID uuidV7() {
    return UuidV7.next();
  }

  /**
   * A minimal RFC 9562 version 7 UUID: 48 bits of Unix milliseconds, the version, 74 random bits
   * from {@link ThreadLocalRandom}, the variant. Not monotonic within a millisecond.
   */
  static final class UuidV7 {
    private UuidV7() {}

    static UUID next() {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      long high = (System.currentTimeMillis() << 16) | 0x7000L | (random.nextLong() & 0x0fffL);
      long low = (random.nextLong() & 0x3fffffffffffffffL) | 0x8000000000000000L;
      return new UUID(high, low);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Runner: one short JMH run per thread count, then a Markdown table
  // ---------------------------------------------------------------------------------------

  private static final int[] THREADS = {1, 2, 4};
  private static final String BASELINE = "uuidV4";

  public static void main(String[] args) throws RunnerException, java.io.IOException {
    if (args.length > 0) {
      org.openjdk.jmh.Main.main(args);
      return;
    }
    Map<String, double[]> scores = new LinkedHashMap<>();
    for (int t = 0; t < THREADS.length; t++) {
      System.out.printf("%n=== %d thread(s) ===%n", THREADS[t]);
      Options options = new OptionsBuilder()
          .include(IdGeneratorBenchmark.class.getName() + "\\.")
          .forks(1)
          .warmupIterations(2)
          .warmupTime(TimeValue.seconds(1))
          .measurementIterations(3)
          .measurementTime(TimeValue.seconds(1))
          .threads(THREADS[t])
          .build();
      for (RunResult result : new Runner(options).run()) {
        String label = result.getParams().getBenchmark();
        label = label.substring(label.lastIndexOf('.') + 1);
        scores.computeIfAbsent(label, k -> new double[THREADS.length])[t] = result.getPrimaryResult().getScore();
      }
    }
    System.out.println();
    System.out.println(table(scores));
  }

  static String table(Map<String, double[]> scores) {
    double[] base = scores.get(BASELINE);
    StringBuilder out = new StringBuilder();
    out.append("| generator | 1 thread: M ids/s | ns/op | vs UUIDv4 |");
    for (int t = 1; t < THREADS.length; t++) {
      out.append(' ').append(THREADS[t]).append(" threads: M ids/s | vs UUIDv4 |");
    }
    out.append('\n').append("|---|---:|---:|---:|");
    for (int t = 1; t < THREADS.length; t++) {
      out.append("---:|---:|");
    }
    out.append('\n');
    List<String> names = new ArrayList<>(scores.keySet());
    for (String name : names) {
      double[] s = scores.get(name);
      out.append(String.format(Locale.ROOT, "| %s | %.2f | %.1f | %.2fx |", name, s[0] / 1e6, 1e9 / s[0],
          s[0] / base[0]));
      for (int t = 1; t < THREADS.length; t++) {
        out.append(String.format(Locale.ROOT, " %.2f | %.2fx |", s[t] / 1e6, s[t] / base[t]));
      }
      out.append('\n');
    }
    return out.toString();
  }
}
