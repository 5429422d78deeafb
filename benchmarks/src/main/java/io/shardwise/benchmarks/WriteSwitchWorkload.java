package io.shardwise.benchmarks;

import static io.shardwise.benchmarks.Workloads.percentile;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.TransactionAbortedException;
import io.shardwise.hibernate.resharding.BucketMovedException;
import io.shardwise.hibernate.resharding.ReshardPhase;
import io.shardwise.hibernate.resharding.ReshardRequest;
import io.shardwise.hibernate.resharding.ReshardTable;
import io.shardwise.hibernate.resharding.ReshardWorkflow;
import io.shardwise.hibernate.resharding.Resharding;
import io.shardwise.hibernate.resharding.SwitchResult;
import io.shardwise.hibernate.routing.BucketStrategy;
import io.shardwise.hibernate.routing.ControlDatabase;
import io.shardwise.hibernate.routing.ControlDatabaseShardMapSource;
import io.shardwise.hibernate.routing.PgHash;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardKeyType;
import io.shardwise.hibernate.routing.ShardMapStaleException;
import io.shardwise.testkit.PostgresTopology;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.hibernate.SessionFactory;

/**
 * The write pause of online moves on the writers' own clock: an application (a Shardwise session
 * factory routed by the control database) runs writer threads, each timing every unit of work with
 * its own {@code System.nanoTime}, retries included (it retries what the docs call retryable:
 * {@link BucketMovedException}, {@link ShardMapStaleException}, a retryable
 * {@link TransactionAbortedException}), while a mover in the same JVM but through its own handle (as
 * the command line would be) makes ten consecutive write switches on a 3-server topology: s0 holds
 * every bucket; a third moves to the new shard s1 (switch, rollback, switch, rollback, switch,
 * complete), then another third to the new shard s2 the same way. Switches 1 and 6 are the first to a
 * shard just added, whose pool has never been used.
 *
 * <p>For each switch: the mover's own pause (drain, catch-up, fences, map change, release) and the
 * writers' p99 and max over every unit of work in flight within 100 ms of the freeze, and the
 * 1-minute load average at the switch. The freeze is located on the benchmark's clock by a follower
 * of the control database of its own: the commit's notification is sent inside the freeze, so the
 * freeze lies within the mover's pause before and after the moment the follower saw the new
 * version; the window is that span widened by 100 ms each side (wider than the freeze ± 100 ms). A switch abandoned within the pause
 * limit is run again, as an operator would, and listed.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.WriteSwitchWorkload
 * </pre>
 *
 * Options: {@code writers=4}, {@code rate=200} (units of work per second per writer),
 * {@code accounts=3000}, {@code gap=1500} (ms between switches), {@code pause=100} (the mover's
 * {@code shardwise.reshard.pause_limit_ms}: raise it on a machine too loaded to switch within
 * 100 ms), {@code docs=docs/benchmarks.md}
 * ({@code none} leaves the docs alone), {@code trace=false} ({@code true} also prints, per switch,
 * the three slowest units near the freeze split into their attempts: open, find, body, commit or
 * refusal, and each attempt's end relative to the flip; with the window's JVM uptime, to line up
 * with {@code -Xlog:class+load:file=...:uptime}).
 */
public final class WriteSwitchWorkload {
  static final String SECTION = "## Resharding";
  static final String BEGIN = "<!-- WriteSwitchWorkload:begin (generated; rerun the workload to replace) -->";
  static final String END = "<!-- WriteSwitchWorkload:end -->";
  static final long WINDOW_NANOS = 100_000_000L;
  static final int BUCKETS = 1024;

  /** One unit of work on the writer's clock. */
  record Unit(long start, long end, int bucket, int retries, List<long[]> attempts) {}

  /** Breadcrumbs of one attempt ({@code trace=true}): start, in the unit's body, after the find, body done, end. */
  static final int STARTED = 0;
  static final int IN_BODY = 1;
  static final int FOUND = 2;
  static final int BODY_DONE = 3;
  static final int ENDED = 4;

  /** One switch: the mover's result, the freeze on the benchmark's clock, the load, earlier abandoned attempts. */
  record Switch(int number, String what, Buckets moving, SwitchResult result, long freezeStart, long freezeEnd,
      double load, List<String> abandoned) {}

  /** The buckets a switch moves. */
  record Buckets(int from, int to) {
    boolean contains(int bucket) {
      return bucket >= from && bucket <= to;
    }
  }

  private final ShardedSessions shards;
  private final int accounts;
  private final ConcurrentLinkedQueue<Unit> units = new ConcurrentLinkedQueue<>();
  private final Map<String, Integer> retriedBy = new ConcurrentHashMap<>();
  private final Map<String, Integer> failedBy = new ConcurrentHashMap<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final boolean trace;

  private WriteSwitchWorkload(ShardedSessions shards, int accounts, boolean trace) {
    this.shards = shards;
    this.accounts = accounts;
    this.trace = trace;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> options = Workloads.keyValues(args, "writers, rate, accounts, gap, pause, docs, trace");
    int writers = Workloads.positive("writers", Integer.parseInt(options.getOrDefault("writers", "4")));
    int rate = Workloads.positive("rate", Integer.parseInt(options.getOrDefault("rate", "200")));
    int accounts = Workloads.positive("accounts", Integer.parseInt(options.getOrDefault("accounts", "3000")));
    long gapMs = Workloads.positive("gap", Integer.parseInt(options.getOrDefault("gap", "1500")));
    int pauseLimitMs = Workloads.positive("pause", Integer.parseInt(options.getOrDefault("pause", "100")));
    String docs = options.getOrDefault("docs", "docs/benchmarks.md");
    boolean trace = Boolean.parseBoolean(options.getOrDefault("trace", "false"));
    Workloads.quietLibraries();
    double loadAtStart = Workloads.loadAverage();

    try (PostgresTopology pg = PostgresTopology.builder().shards(3).start()) {
      String[] urls = {pg.shard(0).primary().jdbcUrl(), pg.shard(1).primary().jdbcUrl(), pg.shard(2).primary().jdbcUrl()};
      exec(urls[0], "CREATE DATABASE control");
      String control = pg.shard(0).primary().jdbcUrl("control");
      try (SessionFactory sf = Shardwise.configure().credentials("postgres", null).ddl("create").schema("create")
          .entities(BenchAccount.class).shard("s0", urls[0]).controlDatabase(control, true).buildSessionFactory()) {
        exec(urls[0], "INSERT INTO bench_account (id, balance) SELECT g, 0 FROM generate_series(0, " + (accounts - 1)
            + ") g", "VACUUM ANALYZE bench_account");
        WriteSwitchWorkload workload = new WriteSwitchWorkload(ShardedSessions.of(sf), accounts, trace);
        // a follower of the control database of the benchmark's own: when it sees a version is when the flip committed
        Map<Long, Long> versionSeenAt = new ConcurrentHashMap<>();
        ControlDatabaseShardMapSource follower = ControlDatabaseShardMapSource.builder(
            new ControlDatabase(control, "postgres", null)).start();
        follower.addListener(map -> versionSeenAt.putIfAbsent(map.version(), System.nanoTime()));
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
          int seed = w;
          Thread t = new Thread(() -> workload.write(seed, rate), "writer-" + w);
          t.start();
          threads.add(t);
        }
        Resharding moves = Shardwise.resharding(Map.of("shardwise.control.url", control, "shardwise.user", "postgres",
            "shardwise.reshard.fence_grace_ms", "0", "shardwise.reshard.pause_limit_ms", Integer.toString(pauseLimitMs)));
        List<Switch> switches = new ArrayList<>();
        long steadyFrom = System.nanoTime();
        Thread.sleep(gapMs);
        workload.move(moves, "s1", urls[1], new Buckets(0, BUCKETS / 3 - 1), switches, versionSeenAt, gapMs);
        workload.move(moves, "s2", urls[2], new Buckets(BUCKETS / 3, 2 * BUCKETS / 3 - 1), switches, versionSeenAt,
            gapMs);
        Thread.sleep(gapMs);
        workload.stop.set(true);
        for (Thread t : threads) {
          t.join();
        }
        follower.close();
        String report = workload.report(switches, steadyFrom, writers, rate, pauseLimitMs, loadAtStart,
            Workloads.loadAverage());
        System.out.println(report);
        if (trace) {
          System.out.println(workload.traces(switches));
        }
        if (!docs.equals("none")) {
          Workloads.writeSection(Path.of(docs), SECTION, BEGIN, END, "", BEGIN + "\n\n" + report + "\n" + END + "\n");
        }
      }
    }
  }

  /** One move to a new shard with five write switches (to it, back, to it, back, to it), then its completion. */
  private void move(Resharding moves, String target, String targetUrl, Buckets buckets, List<Switch> switches,
      Map<Long, Long> versionSeenAt, long gapMs) throws InterruptedException {
    TreeSet<Integer> moving = new TreeSet<>();
    for (int b = buckets.from(); b <= buckets.to(); b++) {
      moving.add(b);
    }
    ReshardWorkflow w = moves.start(new ReshardRequest("s0", target, moving,
        List.of(ReshardTable.sharded("bench_account", "id", ShardKeyType.LONG)), ShardDescriptor.of(target, targetUrl)),
        p -> { });
    if (w.phase() != ReshardPhase.VERIFIED) {
      throw new IllegalStateException("move to " + target + " not verified: " + w.lastError());
    }
    for (int i = 0; i < 5; i++) {
      Thread.sleep(gapMs);
      boolean forward = i % 2 == 0;
      String what = forward ? (i == 0 ? "s0 → " + target + ", first switch to the just-added shard" : "s0 → " + target
          + " again") : target + " → s0 (rollback)";
      List<String> abandoned = new ArrayList<>();
      while (true) {
        double load = Workloads.loadAverage();
        SwitchResult r = forward ? moves.switchWrites(w.id()) : moves.rollbackWrites(w.id());
        Long seen = r.switched() ? awaitVersion(versionSeenAt, r.mapVersion()) : null;
        if (seen != null) {
          // the commit is seen before the release: the freeze lies within the mover's pause on either side
          long pause = (long) (r.pauseMillis() * 1e6);
          switches.add(new Switch(switches.size() + 1, what, buckets, r, seen - pause, seen + pause, load, abandoned));
          System.out.println("switch " + switches.size() + " (" + what + "): " + (forward ? r.describe()
              : r.describeRollback()));
          break;
        }
        abandoned.add(forward ? r.describe() : r.describeRollback());
        System.out.println("abandoned, again: " + abandoned.get(abandoned.size() - 1));
        if (abandoned.size() >= 30) {
          throw new IllegalStateException("thirty attempts abandoned: " + abandoned);
        }
      }
    }
    if (moves.complete(w.id(), p -> { }).phase() != ReshardPhase.COMPLETED) {
      throw new IllegalStateException("move to " + target + " not completed");
    }
  }

  /** When the benchmark's follower saw {@code version}; it may arrive a moment after the mover returned. */
  private static Long awaitVersion(Map<Long, Long> seenAt, long version) throws InterruptedException {
    for (int i = 0; i < 500 && !seenAt.containsKey(version); i++) {
      Thread.sleep(10);
    }
    return seenAt.get(version);
  }

  /** A writer: units of work on random accounts at {@code rate} per second, each timed with its retries. */
  private void write(int seed, int rate) {
    SplittableRandom random = new SplittableRandom(seed);
    long interval = 1_000_000_000L / rate;
    long next = System.nanoTime();
    while (!stop.get()) {
      long id = random.nextInt(accounts);
      long start = System.nanoTime();
      int retries = 0;
      List<long[]> attempts = trace ? new ArrayList<>(2) : null;
      while (true) {
        long[] crumbs = trace ? new long[ENDED + 1] : null;
        if (trace) {
          crumbs[STARTED] = System.nanoTime();
          attempts.add(crumbs);
        }
        try {
          shards.forKey(id).inTransaction(s -> {
            if (crumbs != null) {
              crumbs[IN_BODY] = System.nanoTime();
            }
            BenchAccount account = s.find(BenchAccount.class, id);
            if (crumbs != null) {
              crumbs[FOUND] = System.nanoTime();
            }
            account.deposit(1);
            if (crumbs != null) {
              crumbs[BODY_DONE] = System.nanoTime();
            }
          });
          break;
        } catch (BucketMovedException | ShardMapStaleException e) {
          retries++;
          retriedBy.merge(e.getClass().getSimpleName(), 1, Integer::sum);
        } catch (TransactionAbortedException e) {
          if (!e.isRetryable()) {
            failedBy.merge(e.getClass().getSimpleName() + " " + e.sqlState(), 1, Integer::sum);
            break;
          }
          retries++;
          retriedBy.merge("TransactionAbortedException (retryable, SQLSTATE " + e.sqlState() + ")", 1, Integer::sum);
        } catch (RuntimeException e) {
          failedBy.merge(e.getClass().getSimpleName(), 1, Integer::sum);
          break;
        } finally {
          if (crumbs != null) {
            crumbs[ENDED] = System.nanoTime();
          }
        }
      }
      units.add(new Unit(start, System.nanoTime(), BucketStrategy.bucketOf(PgHash.hashLong(id), BUCKETS), retries,
          attempts));
      next += interval;
      long sleep = next - System.nanoTime();
      if (sleep > 0) {
        LockSupport.parkNanos(sleep);
      } else {
        next = System.nanoTime();   // behind (a paused unit): no burst to catch up
      }
    }
  }

  private String report(List<Switch> switches, long steadyFrom, int writers, int rate, int pauseLimitMs,
      double loadBefore, double loadAfter) {
    StringBuilder out = new StringBuilder();
    double minLoad = switches.stream().mapToDouble(Switch::load).min().orElse(Double.NaN);
    double maxLoad = switches.stream().mapToDouble(Switch::load).max().orElse(Double.NaN);
    // steady state: every unit more than a second away from each freeze, the first second left out
    long[] steady = latencies(u -> u.start() >= steadyFrom + 1_000_000_000L && switches.stream().allMatch(
        s -> u.end() < s.freezeStart() - 1_000_000_000L || u.start() > s.freezeEnd() + 1_000_000_000L));
    out.append(String.format(Locale.ROOT, "One run, %s, 1-minute load average %.1f at the start, %.1f–%.1f at the"
        + " switches, %.1f at the end (2 cores shared with other builds); 3 PostgreSQL 17 servers of the testkit on"
        + " this machine (fsync off); %d writers, each %d units of work/s (`forKey(id).inTransaction`: find an"
        + " account, add 1) on %,d accounts, `pause_limit_ms` %d (default 100). Away from the freezes (more"
        + " than 1 s from each): p50 %.1f ms, p99 %.1f ms, max %.1f ms over %,d units.%n%n", LocalDate.now(), loadBefore, minLoad,
        maxLoad, loadAfter, writers, rate, accounts, pauseLimitMs, ms(percentile(steady, 0.5)), ms(percentile(steady, 0.99)),
        ms(steady.length == 0 ? Double.NaN : steady[steady.length - 1]), steady.length));
    out.append("| # | switch | mover's pause ms (drain, catch-up) | units within 100 ms of the freeze (of them to"
        + " moving buckets) | writers' p99 ms | writers' max ms | refused and retried | load |\n"
        + "|---:|---|---:|---:|---:|---:|---:|---:|\n");
    List<Long> pooled = new ArrayList<>();
    for (Switch s : switches) {
      long from = s.freezeStart() - WINDOW_NANOS;
      long to = s.freezeEnd() + WINDOW_NANOS;
      List<Unit> near = units.stream().filter(u -> u.start() <= to && u.end() >= from).toList();
      long[] latencies = near.stream().mapToLong(u -> u.end() - u.start()).sorted().toArray();
      near.forEach(u -> pooled.add(u.end() - u.start()));
      long toMoving = near.stream().filter(u -> s.moving().contains(u.bucket())).count();
      long retried = near.stream().filter(u -> u.retries() > 0).count();
      out.append(String.format(Locale.ROOT, "| %d | %s | %.1f (%.1f, %.1f) | %d (%d) | %.1f | %.1f | %d | %.1f |%n",
          s.number(), s.what(), s.result().pauseMillis(), s.result().drainMillis(), s.result().catchUpMillis(),
          latencies.length, toMoving, ms(percentile(latencies, 0.99)),
          ms(latencies.length == 0 ? Double.NaN : latencies[latencies.length - 1]), retried, s.load()));
    }
    long[] all = pooled.stream().mapToLong(Long::longValue).sorted().toArray();
    out.append(String.format(Locale.ROOT, "%nAll ten windows together: %,d units, p99 %.1f ms, max %.1f ms (targets"
        + " p99 < 50 ms, max < 100 ms at load ≤ 8). Retried after: %s; failed: %s.%n", all.length,
        ms(percentile(all, 0.99)), ms(all.length == 0 ? Double.NaN : all[all.length - 1]), new java.util.TreeMap<>(retriedBy),
        failedBy.isEmpty() ? "none" : new java.util.TreeMap<>(failedBy)));
    for (Switch s : switches) {
      for (String a : s.abandoned()) {
        out.append(String.format(Locale.ROOT, "%nSwitch %d was first abandoned (and run again): %s%n", s.number(), a));
      }
    }
    return out.toString();
  }

  /**
   * For {@code trace=true}: per switch, the three slowest units within 100 ms of the freeze, each
   * attempt split into route and session open (to the body), the find, the body, and commit or
   * refusal (to the end), with the attempt's end relative to the moment the benchmark's follower saw
   * the new map, and the JVM uptime of the window (to line up with {@code -Xlog:class+load}).
   */
  private String traces(List<Switch> switches) {
    long uptimeOffsetNanos = java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime() * 1_000_000L
        - System.nanoTime();
    StringBuilder out = new StringBuilder("Slowest units near each freeze (ms; attempt: open, find, body, commit or"
        + " refusal; end relative to the flip seen):\n");
    for (Switch s : switches) {
      long from = s.freezeStart() - WINDOW_NANOS;
      long to = s.freezeEnd() + WINDOW_NANOS;
      long flip = (s.freezeStart() + s.freezeEnd()) / 2;
      out.append(String.format(Locale.ROOT, "switch %d, JVM uptime %.0f–%.0f ms:%n", s.number(),
          ms(from + uptimeOffsetNanos), ms(to + uptimeOffsetNanos)));
      units.stream().filter(u -> u.start() <= to && u.end() >= from && u.attempts() != null)
          .sorted(java.util.Comparator.comparingLong((Unit u) -> u.end() - u.start()).reversed()).limit(3)
          .forEach(u -> {
            out.append(String.format(Locale.ROOT, "  %.1f ms, bucket %d%s:", ms(u.end() - u.start()), u.bucket(),
                s.moving().contains(u.bucket()) ? " (moving)" : ""));
            for (long[] a : u.attempts()) {
              out.append(a[IN_BODY] == 0
                  ? String.format(Locale.ROOT, " [refused before the body: %.1f, end %+.1f]", ms(a[ENDED] - a[STARTED]),
                      ms(a[ENDED] - flip))
                  : String.format(Locale.ROOT, " [%.1f, %.1f, %.1f, %.1f, end %+.1f]", ms(a[IN_BODY] - a[STARTED]),
                      ms(a[FOUND] - a[IN_BODY]), ms(a[BODY_DONE] - a[FOUND]), ms(a[ENDED] - a[BODY_DONE]),
                      ms(a[ENDED] - flip)));
            }
            out.append('\n');
          });
    }
    return out.toString();
  }

  private long[] latencies(java.util.function.Predicate<Unit> which) {
    return units.stream().filter(which).mapToLong(u -> u.end() - u.start()).sorted().toArray();
  }

  private static double ms(double nanos) {
    return nanos / 1e6;
  }

  private static void exec(String url, String... sql) throws java.sql.SQLException {
    try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement s = c.createStatement()) {
      for (String q : sql) {
        s.execute(q);
      }
    }
  }
}
