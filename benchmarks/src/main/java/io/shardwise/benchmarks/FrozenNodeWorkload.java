package io.shardwise.benchmarks;

import io.shardwise.hibernate.ShardSaturatedException;
import io.shardwise.hibernate.ShardUnavailableException;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.hibernate.SessionFactory;

/**
 * What the application sees when a node freezes, measured on the application's own clock: every
 * worker thread reads {@link System#nanoTime()} around each unit of work it runs, and the figures
 * come from those readings alone, never from Shardwise's timers. Default settings throughout (the
 * socket timeout of 15 s, the breaker, the monitor), on 3 shards of a primary and one streaming
 * replica each (testkit), in one run:
 *
 * <ol>
 *   <li><b>A frozen primary.</b> {@code writers} threads each own one account on every shard and
 *       go round the shards: a write transaction on its account, then a read-only read of it.
 *       After a baseline, shard1's primary is frozen (SIGSTOP) for {@code freeze} seconds. Reported:
 *       for each thread, the longest it was held inside one unit of work after the freeze began;
 *       units completed per shard and per second during the freeze against the baseline; what the
 *       failed units threw.</li>
 *   <li><b>A frozen replica.</b> {@code readers} threads read accounts of shard0 in read-only units
 *       of work (served by its replica) while that replica is frozen for {@code freeze} seconds.
 *       Reported: the longest each reader was held, and the read rate in 500 ms steps after the
 *       freeze against the baseline, with the first step back at 80 %.</li>
 * </ol>
 *
 * <p>The results replace the generated block in {@code docs/failure-handling.md} (when run from the
 * repository root). Run:
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.FrozenNodeWorkload
 * </pre>
 *
 * Options, as {@code key=value}: {@code baseline=5} (seconds), {@code freeze=10} (seconds),
 * {@code writers=8}, {@code readers=4}, {@code docs=docs/failure-handling.md} ({@code none} to
 * leave it alone).
 */
public final class FrozenNodeWorkload {
  static final String BEGIN = "<!-- FrozenNodeWorkload:begin (generated; rerun the workload to replace) -->";
  static final String END = "<!-- FrozenNodeWorkload:end -->";
  private static final String SECTION = "## What the application sees, on its own clock";
  private static final int SHARDS = 3;
  private static final int FROZEN_SHARD = 1;
  private static final int WRITE = 0;
  private static final int READ = 1;

  /** One unit of work as its thread timed it. */
  private record Unit(long started, long ended, int shard, int kind, String failure) {
    boolean ok() {
      return failure == null;
    }

    /** How long the unit held its thread after {@code from} (0 when it ended before). */
    long heldAfter(long from) {
      return Math.max(0, ended - Math.max(started, from));
    }
  }

  private final Options options;
  private final ShardedSessions shards;
  /** Set while the workers of a scenario run. */
  private volatile boolean running;

  private FrozenNodeWorkload(Options options, ShardedSessions shards) {
    this.options = options;
    this.shards = shards;
  }

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    Workloads.quietLibraries();
    System.out.println("[frozen] " + options);
    try (PostgresTopology pg = PostgresTopology.builder().shards(SHARDS).replicasPerShard(1).start()) {
      Shardwise.Builder builder = Shardwise.configure().credentials("postgres", null).schema("create")
          .entities(BenchAccount.class);
      for (PostgresShard shard : pg.shards()) {
        builder.shard("shard" + shard.index(), shard.primary().jdbcUrl())
            .replica("shard" + shard.index(), shard.replica(0).jdbcUrl());
      }
      try (SessionFactory sessionFactory = builder.buildSessionFactory()) {
        ShardedSessions shards = ShardedSessions.of(sessionFactory);
        FrozenNodeWorkload workload = new FrozenNodeWorkload(options, shards);
        double loadBefore = Workloads.loadAverage();
        String primary = workload.frozenPrimary(pg);
        String replica = workload.frozenReplica(pg);
        String report = "Run " + LocalDate.now() + " (PostgreSQL " + Workloads.serverVersion(pg.shard(0).primary())
            + ", load average " + String.format(Locale.ROOT, "%.1f", loadBefore) + " before, "
            + String.format(Locale.ROOT, "%.1f", Workloads.loadAverage()) + " after, on "
            + Runtime.getRuntime().availableProcessors() + " cores); default settings, freeze of "
            + options.freezeSeconds + " s, baseline of " + options.baselineSeconds + " s.\n\n" + primary + "\n" + replica;
        System.out.println();
        System.out.println(report);
        if (options.docs != null) {
          Workloads.writeSection(options.docs, SECTION, BEGIN, END, "", BEGIN + "\n" + report + END + "\n");
          System.out.println("[frozen] results written to " + options.docs);
        }
      }
    }
  }

  // --- a frozen primary ----------------------------------------------------------------------

  private String frozenPrimary(PostgresTopology pg) throws Exception {
    long[][] keys = new long[options.writers][SHARDS];
    for (int w = 0; w < options.writers; w++) {
      for (int s = 0; s < SHARDS; s++) {
        keys[w][s] = account(w * 100 + s, s);
      }
    }
    awaitReplicas(pg);
    PostgresNode primary = pg.shard(FROZEN_SHARD).primary();
    Timeline t = run(options.writers, worker -> {
      List<Unit> units = new ArrayList<>();
      for (int turn = 0; running; turn++) {
        int shard = turn % SHARDS;
        long key = keys[worker][shard];
        units.add(timed(shard, WRITE, () -> shards.forKey(key).inTransaction(
            s -> s.find(BenchAccount.class, key).deposit(1))));
        units.add(timed(shard, READ, () -> shards.forKey(key).readOnly().fromSession(
            s -> s.find(BenchAccount.class, key).getBalance())));
      }
      return units;
    }, primary);
    StringBuilder out = new StringBuilder();
    out.append("**A frozen primary** (shard1's, SIGSTOP for ").append(options.freezeSeconds).append(" s; ")
        .append(options.writers).append(" threads, each a write transaction then a read-only read on its account of")
        .append(" shard0, shard1, shard2 in turn):\n\n");
    out.append(heldTable(t, "thread"));
    out.append("\n| shard | writes/s before | during the freeze | ratio | reads/s before | during the freeze | ratio |\n");
    out.append("|---|---|---|---|---|---|---|\n");
    for (int s = 0; s < SHARDS; s++) {
      double wb = t.rate(s, WRITE, t.baselineFrom, t.frozenAt);
      double wf = t.rate(s, WRITE, t.frozenAt, t.thawedAt);
      double rb = t.rate(s, READ, t.baselineFrom, t.frozenAt);
      double rf = t.rate(s, READ, t.frozenAt, t.thawedAt);
      out.append(String.format(Locale.ROOT, "| shard%d%s | %.0f | %.0f | %.2f | %.0f | %.0f | %.2f |%n", s,
          s == FROZEN_SHARD ? " (frozen primary)" : "", wb, wf, wf / wb, rb, rf, rf / rb));
    }
    long back = t.byThread.stream().flatMap(List::stream)
        .filter(u -> u.ok() && u.shard == FROZEN_SHARD && u.kind == WRITE && u.ended > t.thawedAt)
        .mapToLong(u -> u.ended - t.thawedAt).min().orElse(-1);
    out.append("\nThe first write to shard1 after the thaw completed ")
        .append(back < 0 ? "never (within 3 s)" : TimeUnit.NANOSECONDS.toMillis(back) + " ms after it").append(".\n");
    out.append("\n").append(failures(t)).append("\n");
    return out.toString();
  }

  // --- a frozen replica ----------------------------------------------------------------------

  private String frozenReplica(PostgresTopology pg) throws Exception {
    long[] keys = new long[options.readers];
    for (int r = 0; r < options.readers; r++) {
      keys[r] = account(10_000 + r, 0);
    }
    awaitReplicas(pg);
    PostgresNode replica = pg.shard(0).replica(0);
    Timeline t = run(options.readers, reader -> {
      List<Unit> units = new ArrayList<>();
      long key = keys[reader];
      while (running) {
        units.add(timed(0, READ, () -> shards.forKey(key).readOnly().fromSession(
            s -> s.find(BenchAccount.class, key).getBalance())));
      }
      return units;
    }, replica);
    double baseline = t.rate(0, READ, t.baselineFrom, t.frozenAt);
    StringBuilder out = new StringBuilder();
    out.append("**A frozen replica** (shard0's only replica, SIGSTOP for ").append(options.freezeSeconds)
        .append(" s; ").append(options.readers).append(" threads reading accounts of shard0 in read-only units of")
        .append(" work):\n\n");
    out.append(heldTable(t, "reader"));
    out.append(String.format(Locale.ROOT, "%nReads/s before the freeze: %.0f. After the freeze, by 500 ms step:",
        baseline));
    long step = TimeUnit.MILLISECONDS.toNanos(500);
    String backAt = "not within the freeze";
    for (long from = t.frozenAt; from + step <= t.thawedAt; from += step) {
      double rate = t.rate(0, READ, from, from + step);
      if (from - t.frozenAt < TimeUnit.SECONDS.toNanos(5)) {
        out.append(String.format(Locale.ROOT, " %.0f", rate));
      }
      if (rate >= 0.8 * baseline && backAt.startsWith("not")) {
        backAt = String.format(Locale.ROOT, "%.1f s after the freeze", (from + step - t.frozenAt) / 1e9);
      }
    }
    out.append(String.format(Locale.ROOT, " …; over the whole freeze %.0f/s (%.2f of before). Back at 80 %% %s.%n",
        t.rate(0, READ, t.frozenAt, t.thawedAt), t.rate(0, READ, t.frozenAt, t.thawedAt) / baseline, backAt));
    out.append("\n").append(failures(t));
    return out.toString();
  }

  // --- the timeline ----------------------------------------------------------------------------

  /** What every thread ran, and when the baseline began, the node froze and thawed. */
  private static final class Timeline {
    final List<List<Unit>> byThread;
    final long baselineFrom;
    final long frozenAt;
    final long thawedAt;

    Timeline(List<List<Unit>> byThread, long baselineFrom, long frozenAt, long thawedAt) {
      this.byThread = byThread;
      this.baselineFrom = baselineFrom;
      this.frozenAt = frozenAt;
      this.thawedAt = thawedAt;
    }

    /** Units of {@code kind} on {@code shard} that succeeded, ending in [from, to), per second. */
    double rate(int shard, int kind, long from, long to) {
      long n = byThread.stream().flatMap(List::stream)
          .filter(u -> u.ok() && u.shard == shard && u.kind == kind && u.ended >= from && u.ended < to).count();
      return n / ((to - from) / 1e9);
    }

    /** The longest one unit of work held {@code thread} after the freeze began (before the thaw). */
    long heldAfterFreeze(List<Unit> thread) {
      return thread.stream().filter(u -> u.started < thawedAt).mapToLong(u -> u.heldAfter(frozenAt)).max().orElse(0);
    }
  }

  private interface Worker {
    List<Unit> run(int index) throws Exception;
  }

  /** Runs {@code threads} workers: a warm-up, the baseline, {@code node} frozen, then a moment after the thaw. */
  private Timeline run(int threads, Worker worker, PostgresNode node) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    running = true;
    List<Future<List<Unit>>> futures = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      int index = i;
      futures.add(pool.submit(() -> worker.run(index)));
    }
    Thread.sleep(2000); // warm-up: pools filled, plans cached
    long baselineFrom = System.nanoTime();
    Thread.sleep(TimeUnit.SECONDS.toMillis(options.baselineSeconds));
    node.freeze();
    long frozenAt = System.nanoTime();
    System.out.println("[frozen] " + node.name() + " frozen");
    Thread.sleep(TimeUnit.SECONDS.toMillis(options.freezeSeconds));
    long thawedAt = System.nanoTime();
    node.thaw();
    System.out.println("[frozen] " + node.name() + " thawed");
    Thread.sleep(3000);
    running = false;
    pool.shutdown();
    if (!pool.awaitTermination(60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("workers still running 60 s after the stop");
    }
    List<List<Unit>> byThread = new ArrayList<>();
    for (Future<List<Unit>> f : futures) {
      byThread.add(f.get());
    }
    return new Timeline(byThread, baselineFrom, frozenAt, thawedAt);
  }

  /** One unit of work, timed on this thread's clock; what it threw, by type, if it failed. */
  private static Unit timed(int shard, int kind, Runnable work) {
    long started = System.nanoTime();
    String failure = null;
    try {
      work.run();
    } catch (ShardUnavailableException e) {
      failure = e.breakerState() != null ? "ShardUnavailableException (breaker " + e.breakerState() + ")"
          : "ShardUnavailableException (" + e.node().replaceAll(" .*", "") + " asked)";
    } catch (ShardSaturatedException e) {
      failure = "ShardSaturatedException";
    } catch (RuntimeException e) {
      failure = e.getClass().getName() + ": " + e.getMessage();
    }
    return new Unit(started, System.nanoTime(), shard, kind, failure);
  }

  private static String heldTable(Timeline t, String what) {
    StringBuilder out = new StringBuilder("| longest held in one unit of work after the freeze, per " + what
        + " (ms) | max |\n|---|---|\n| ");
    long max = 0;
    List<String> each = new ArrayList<>();
    for (List<Unit> thread : t.byThread) {
      long held = t.heldAfterFreeze(thread);
      max = Math.max(max, held);
      each.add(Long.toString(TimeUnit.NANOSECONDS.toMillis(held)));
    }
    return out.append(String.join(", ", each)).append(" | ").append(TimeUnit.NANOSECONDS.toMillis(max))
        .append(" |\n").toString();
  }

  /** Failed units during the freeze (and until the thaw's effects pass), counted by what they threw. */
  private static String failures(Timeline t) {
    Map<String, Integer> counts = new TreeMap<>();
    t.byThread.stream().flatMap(List::stream).filter(u -> !u.ok())
        .forEach(u -> counts.merge("shard" + u.shard + (u.kind == WRITE ? " write" : " read") + ": " + u.failure, 1,
            Integer::sum));
    if (counts.isEmpty()) {
      return "No unit of work failed.\n";
    }
    StringBuilder out = new StringBuilder("Failed units of work:");
    counts.forEach((k, n) -> out.append(" ").append(n).append(" × ").append(k).append(";"));
    out.setLength(out.length() - 1);
    return out.append(".\n").toString();
  }

  /** A new account on {@code shard} (the first free key from {@code from} that routes there). */
  private long account(long from, int shard) {
    long key = from * 1000;
    while (!shards.shardFor(key).equals("shard" + shard)) {
      key++;
    }
    long id = key;
    shards.forKey(id).inTransaction(s -> s.persist(new BenchAccount(id, 0)));
    return id;
  }

  private void awaitReplicas(PostgresTopology pg) throws InterruptedException {
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(60));
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!shards.replicaStatus().stream().allMatch(ReplicaStatus::healthy)) {
      if (System.nanoTime() > until) {
        throw new IllegalStateException("replicas not healthy: " + shards.replicaStatus());
      }
      Thread.sleep(50);
    }
  }

  static final class Options {
    int baselineSeconds = 5;
    int freezeSeconds = 10;
    int writers = 8;
    int readers = 4;
    Path docs = Path.of("docs", "failure-handling.md");

    static Options parse(String[] args) {
      Options o = new Options();
      for (Map.Entry<String, String> arg : Workloads.keyValues(args, "baseline, freeze, writers, readers, docs")
          .entrySet()) {
        String key = arg.getKey();
        String value = arg.getValue();
        try {
          switch (key) {
            case "baseline" -> o.baselineSeconds = Workloads.positive(key, Integer.parseInt(value));
            case "freeze" -> o.freezeSeconds = Workloads.positive(key, Integer.parseInt(value));
            case "writers" -> o.writers = Workloads.positive(key, Integer.parseInt(value));
            case "readers" -> o.readers = Workloads.positive(key, Integer.parseInt(value));
            case "docs" -> o.docs = value.equals("none") ? null : Path.of(value);
            default -> throw new IllegalArgumentException("Unknown option '" + key
                + "': use baseline, freeze, writers, readers or docs");
          }
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("Option " + key + " needs a number, got '" + value + "'");
        }
      }
      return o;
    }

    @Override
    public String toString() {
      return "baseline=" + baselineSeconds + " freeze=" + freezeSeconds + " writers=" + writers + " readers="
          + readers + " docs=" + (docs == null ? "none" : docs);
    }
  }
}
