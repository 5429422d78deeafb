package io.shardwise.benchmarks;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.hibernate.SessionFactory;

/**
 * Hedged replica reads against none, on the application's clock: {@code readers} threads read
 * accounts of one shard (a primary and two streaming replicas, testkit) in read-only units of work,
 * each thread reading {@link System#nanoTime()} around every unit; the figures come from those
 * readings. Three situations, each run in {@code rounds} rounds of each mode, the modes alternating
 * (off, on, off, on, ...) so that a change in the machine's load hits both; medians over the rounds:
 *
 * <ol>
 *   <li><b>healthy</b>: nothing is wrong; what hedging costs — units run twice (each run sends the
 *       same statements, so this is the extra statements), client CPU per unit;</li>
 *   <li><b>slowed replica</b>: one replica answers 3 % of its units 500 ms late (a server-side
 *       {@code pg_sleep} on that replica only: a live server with stalls, as a busy disk or a vacuum
 *       makes them; a replica slow on every unit learns its own slowness, whose p95 is then the
 *       slow time, and is not hedged);</li>
 *   <li><b>frozen replica</b>: one replica is frozen (SIGSTOP) for {@code freeze} seconds, one second
 *       into the window; the window ends 2 s after the thaw.</li>
 * </ol>
 *
 * Default settings except that the route says {@code readOnly().hedged(true)} in the "on" rounds
 * (the per-query opt-in; {@code shardwise.read.hedge.*} at their defaults: p95 × 2 within 20..1000 ms).
 * Client CPU is the JVM's process CPU time over the window (the servers are other processes) divided
 * by the units completed. The results replace the generated block in {@code docs/failure-handling.md}.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.HedgedReadsWorkload
 * </pre>
 *
 * Options, as {@code key=value}: {@code window=5} (seconds, healthy and slowed), {@code freeze=3}
 * (seconds), {@code rounds=3}, {@code readers=4}, {@code situations=healthy,slowed,frozen} (which
 * to run), {@code docs=docs/failure-handling.md} ({@code none} to leave it alone).
 */
public final class HedgedReadsWorkload {
  static final String BEGIN = "<!-- HedgedReadsWorkload:begin (generated; rerun the workload to replace) -->";
  static final String END = "<!-- HedgedReadsWorkload:end -->";
  private static final String SECTION = "## Hedged replica reads";
  private static final int NOBODY = -1;

  private enum Situation { HEALTHY, SLOWED, FROZEN }

  /** One round of one mode: every unit's latency, failures, the callback's runs and the process CPU. */
  private record Round(long[] sortedNanos, long failed, long runs, long cpuNanos, double seconds) {
    double extraPercent() {
      return sortedNanos.length == 0 ? Double.NaN : 100.0 * (runs - sortedNanos.length - failed) / sortedNanos.length;
    }

    double cpuMicrosPerUnit() {
      return sortedNanos.length == 0 ? Double.NaN : cpuNanos / 1e3 / sortedNanos.length;
    }
  }

  private final Options options;
  private final ShardedSessions shards;
  private final long[] keys;
  private volatile boolean running;

  private HedgedReadsWorkload(Options options, ShardedSessions shards, long[] keys) {
    this.options = options;
    this.shards = shards;
    this.keys = keys;
  }

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    Workloads.quietLibraries();
    System.out.println("[hedge] " + options);
    try (PostgresTopology pg = PostgresTopology.builder().shards(1).replicasPerShard(2).start()) {
      PostgresShard shard = pg.shard(0);
      try (SessionFactory sessionFactory = Shardwise.configure().credentials("postgres", null).schema("create")
          .entities(BenchAccount.class)
          .shard("shard0", shard.primary().jdbcUrl())
          .replica("shard0", shard.replica(0).jdbcUrl())
          .replica("shard0", shard.replica(1).jdbcUrl())
          .buildSessionFactory()) {
        ShardedSessions shards = ShardedSessions.of(sessionFactory);
        long[] keys = new long[options.readers];
        for (int r = 0; r < keys.length; r++) {
          long id = 1000 + r;
          shards.forKey(id).inTransaction(s -> s.persist(new BenchAccount(id, 0)));
          keys[r] = id;
        }
        HedgedReadsWorkload workload = new HedgedReadsWorkload(options, shards, keys);
        double loadBefore = Workloads.loadAverage();
        StringBuilder tables = new StringBuilder();
        for (Situation situation : options.situations) {
          tables.append(workload.compare(pg, situation));
        }
        String report = "Run " + LocalDate.now() + " (PostgreSQL " + Workloads.serverVersion(shard.primary())
            + ", load average " + String.format(Locale.ROOT, "%.1f", loadBefore) + " before, "
            + String.format(Locale.ROOT, "%.1f", Workloads.loadAverage()) + " after, on "
            + Runtime.getRuntime().availableProcessors() + " cores); one shard, a primary and two replicas, "
            + options.readers + " reader threads, " + options.rounds + " alternating rounds of each mode (medians),"
            + " windows of " + options.windowSeconds + " s (frozen: " + (options.freezeSeconds + 3) + " s with a "
            + options.freezeSeconds + " s freeze).\n\n"
            + "| situation | hedging | units/s | p50 ms | p99 ms | max ms | failed | units run twice | client CPU µs/unit |\n"
            + "|---|---|---|---|---|---|---|---|---|\n" + tables;
        System.out.println();
        System.out.println(report);
        if (options.docs != null) {
          Workloads.writeSection(options.docs, SECTION, BEGIN, END, "", BEGIN + "\n" + report + END + "\n");
          System.out.println("[hedge] results written to " + options.docs);
        }
      }
    }
  }

  private String compare(PostgresTopology pg, Situation situation) throws Exception {
    List<Round> off = new ArrayList<>();
    List<Round> on = new ArrayList<>();
    for (int round = 0; round < options.rounds; round++) {
      off.add(round(pg, situation, false));
      on.add(round(pg, situation, true));
    }
    return row(situation, "off", off) + row(situation, "on", on);
  }

  private static String row(Situation situation, String mode, List<Round> rounds) {
    return String.format(Locale.ROOT, "| %s | %s | %.0f | %.2f | %.1f | %.0f | %.0f | %.2f %% | %.0f |%n",
        situation.name().toLowerCase(Locale.ROOT).replace("slowed", "slowed replica").replace("frozen",
            "frozen replica"), mode,
        Workloads.median(rounds, r -> r.sortedNanos.length / r.seconds),
        Workloads.median(rounds, r -> Workloads.ms(Workloads.percentile(r.sortedNanos, 0.50))),
        Workloads.median(rounds, r -> Workloads.ms(Workloads.percentile(r.sortedNanos, 0.99))),
        Workloads.median(rounds, r -> Workloads.ms(Workloads.max(r.sortedNanos))),
        Workloads.median(rounds, r -> r.failed),
        Workloads.median(rounds, Round::extraPercent),
        Workloads.median(rounds, Round::cpuMicrosPerUnit));
  }

  private Round round(PostgresTopology pg, Situation situation, boolean hedged) throws Exception {
    awaitHealthy(pg);
    PostgresNode troubled = pg.shard(0).replica(0);
    int slowPort = situation == Situation.SLOWED ? troubled.port() : NOBODY;
    java.util.Queue<java.util.concurrent.atomic.AtomicInteger> runs = new java.util.concurrent.ConcurrentLinkedQueue<>();
    AtomicLong failed = new AtomicLong();
    long[] window = new long[2]; // when the kept window opens and closes (System.nanoTime), read by the readers after
    window[0] = Long.MAX_VALUE;
    ExecutorService pool = Executors.newFixedThreadPool(options.readers);
    running = true;
    List<Future<LongList>> futures = new ArrayList<>();
    for (int r = 0; r < options.readers; r++) {
      long key = keys[r];
      futures.add(pool.submit(() -> {
        LongList took = new LongList();
        while (running) {
          long opens;
          synchronized (window) {
            opens = window[0];
          }
          long started = System.nanoTime();
          java.util.concurrent.atomic.AtomicInteger runsOfUnit = new java.util.concurrent.atomic.AtomicInteger();
          try {
            shards.forKey(key).readOnly().hedged(hedged).fromSession(s -> {
              runsOfUnit.incrementAndGet();
              s.createNativeQuery("SELECT pg_sleep(CASE WHEN inet_server_port() = " + slowPort
                  + " AND random() < 0.03 THEN 0.5 ELSE 0 END)", Object.class).getSingleResult();
              return s.find(BenchAccount.class, key).getBalance();
            });
            if (started >= opens) {
              took.add(System.nanoTime() - started);
              runs.add(runsOfUnit);
            }
          } catch (RuntimeException e) {
            if (started >= opens) {
              failed.incrementAndGet();
              runs.add(runsOfUnit);
            }
          }
        }
        return took;
      }));
    }
    Thread.sleep(1000); // warm-up of this round: units started before the window opens are not kept
    long cpuBefore = processCpuNanos();
    long from = System.nanoTime();
    synchronized (window) {
      window[0] = from;
    }
    long windowMs;
    if (situation == Situation.FROZEN) {
      Thread.sleep(1000);
      troubled.freeze();
      Thread.sleep(TimeUnit.SECONDS.toMillis(options.freezeSeconds));
      troubled.thaw();
      Thread.sleep(2000);
      windowMs = 3000 + TimeUnit.SECONDS.toMillis(options.freezeSeconds);
    } else {
      Thread.sleep(TimeUnit.SECONDS.toMillis(options.windowSeconds));
      windowMs = TimeUnit.SECONDS.toMillis(options.windowSeconds);
    }
    running = false;
    long cpu = processCpuNanos() - cpuBefore;
    double seconds = (System.nanoTime() - from) / 1e9;
    pool.shutdown();
    if (!pool.awaitTermination(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("readers still running 60 s after the stop");
    }
    LongList all = new LongList();
    for (Future<LongList> f : futures) {
      all.addAll(f.get());
    }
    long[] kept = all.sorted();
    // a second run still going when its unit returned may count a moment later: wait for the hedge threads to settle
    Thread.sleep(500);
    long runsInWindow = runs.stream().mapToLong(java.util.concurrent.atomic.AtomicInteger::get).sum();
    System.out.printf(Locale.ROOT, "[hedge] %s hedging=%s: %d units in %d ms, %d failed, %d runs%n", situation, hedged,
        kept.length, windowMs, failed.get(), runsInWindow);
    return new Round(kept, failed.get(), runsInWindow, cpu, seconds);
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private void awaitHealthy(PostgresTopology pg) throws InterruptedException {
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(60));
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!shards.replicaStatus().stream().allMatch(ReplicaStatus::healthy)
        || !shards.nodeStatus().stream().allMatch(n -> n.state() == io.shardwise.hibernate.BreakerState.CLOSED)) {
      if (System.nanoTime() > until) {
        throw new IllegalStateException("replicas not healthy: " + shards.replicaStatus());
      }
      shards.checkReplicasNow();
      Thread.sleep(50);
    }
  }

  static final class Options {
    int windowSeconds = 5;
    int freezeSeconds = 3;
    int rounds = 3;
    int readers = 4;
    Path docs = Path.of("docs", "failure-handling.md");
    List<Situation> situations = List.of(Situation.values());

    static Options parse(String[] args) {
      Options o = new Options();
      for (Map.Entry<String, String> arg : Workloads.keyValues(args, "window, freeze, rounds, readers, situations, docs")
          .entrySet()) {
        String key = arg.getKey();
        String value = arg.getValue();
        try {
          switch (key) {
            case "window" -> o.windowSeconds = Workloads.positive(key, Integer.parseInt(value));
            case "freeze" -> o.freezeSeconds = Workloads.positive(key, Integer.parseInt(value));
            case "rounds" -> o.rounds = Workloads.positive(key, Integer.parseInt(value));
            case "readers" -> o.readers = Workloads.positive(key, Integer.parseInt(value));
            case "docs" -> o.docs = value.equals("none") ? null : Path.of(value);
            case "situations" -> o.situations = situations(value);
            default -> throw new IllegalArgumentException("Unknown option '" + key
                + "': use window, freeze, rounds, readers, situations or docs");
          }
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("Option " + key + " needs a number, got '" + value + "'");
        }
      }
      return o;
    }

    private static List<Situation> situations(String value) {
      List<Situation> chosen = new ArrayList<>();
      for (String name : value.split(",")) {
        try {
          chosen.add(Situation.valueOf(name.trim().toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("Option situations takes healthy, slowed and frozen (comma-separated),"
              + " got '" + name + "'");
        }
      }
      return chosen;
    }

    @Override
    public String toString() {
      return "situations=" + situations.toString().toLowerCase(Locale.ROOT) + " window=" + windowSeconds + " freeze=" + freezeSeconds + " rounds=" + rounds + " readers=" + readers
          + " docs=" + (docs == null ? "none" : docs);
    }
  }
}
