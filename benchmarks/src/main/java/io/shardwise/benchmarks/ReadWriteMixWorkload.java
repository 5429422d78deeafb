package io.shardwise.benchmarks;

import static io.shardwise.benchmarks.Workloads.ms;
import static io.shardwise.benchmarks.Workloads.percentile;

import io.shardwise.hibernate.ShardRoute;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.readwrite.ConsistencyScope;
import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.hibernate.SessionFactory;

/**
 * Read/write splitting under load, on a real topology (2 shards, each a primary and one streaming
 * replica, from the testkit), in one run:
 *
 * <ol>
 *   <li><b>Read/write mix.</b> Worker threads each own a few users; every operation picks one of
 *       them and reads its profile (read-only session) or, with the write share, renames it (write
 *       transaction). With read-your-writes on, each user is a consistency scope and the profile is
 *       {@code @ReadYourWrites(mode = LSN)}: a read right after the user's write goes to the primary
 *       until a replica has replayed the write. With it off (no scope) reads always go to a healthy
 *       replica and may be stale. Reported per thread count and replica apply delay: the share of
 *       reads replicas served (from {@link ShardedSessions#readCounts()}), throughput, read and
 *       write latency, and the reads that returned an older name than the thread last wrote.</li>
 *   <li><b>LSN capture.</b> The same write transaction within a scope on {@link RywProfile}
 *       (captures {@code pg_current_wal_lsn()} after commit and pins the scope) and on
 *       {@link PlainProfile} (no {@code @ReadYourWrites}: nothing captured), in alternating blocks
 *       (ABBA order) so that drift of a shared machine hits both sides alike.</li>
 * </ol>
 *
 * <p>Progress goes to standard output; the results table replaces the generated part of the
 * section "Read/write splitting" in {@code docs/benchmarks.md} (when run from the repository root).
 *
 * <p>Run from the repository root:
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.ReadWriteMixWorkload
 * </pre>
 *
 * Options, as {@code key=value} arguments: {@code seconds=10} (measured time per mix
 * configuration), {@code warmup=3}, {@code threads=2,4}, {@code users=4} (users per thread),
 * {@code writes=10} (percent), {@code delays=0,100} (replica apply delays in ms),
 * {@code block=1000} (ms per LSN-capture block), {@code pairs=6}, {@code captureThreads=1,2},
 * {@code docs=docs/benchmarks.md} ({@code none} to leave the file alone).
 */
public final class ReadWriteMixWorkload {
  static final String BEGIN = "<!-- ReadWriteMixWorkload:begin (generated; rerun the workload to replace) -->";
  static final String END = "<!-- ReadWriteMixWorkload:end -->";
  private static final String SECTION = "## Read/write splitting";
  private static final String SECRET = "benchmark-only-secret-0123456789abcdef";


  private final Options options;
  private final PostgresTopology pg;
  private final ShardedSessions shards;
  private final AtomicLong nextUser = new AtomicLong(1);

  private ReadWriteMixWorkload(Options options, PostgresTopology pg, ShardedSessions shards) {
    this.options = options;
    this.pg = pg;
    this.shards = shards;
  }

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    Workloads.quietLibraries();
    System.out.println("[rw-bench] " + options);
    System.out.println("[rw-bench] starting 2 shards x (1 primary + 1 replica) ...");
    try (PostgresTopology pg = PostgresTopology.builder().shards(2).replicasPerShard(1).start()) {
      System.out.printf("[rw-bench] topology up in %d ms%n", pg.startupTime().toMillis());
      Shardwise.Builder builder = Shardwise.configure().credentials("postgres", null)
          .property(ShardwiseSettings.RYW_SECRET, SECRET)
          .schema("create")
          .entities(RywProfile.class, PlainProfile.class);
      for (PostgresShard shard : pg.shards()) {
        builder.shard("shard" + shard.index(), shard.primary().jdbcUrl())
            .replica("shard" + shard.index(), shard.replica(0).jdbcUrl());
      }
      try (SessionFactory sessionFactory = builder.buildSessionFactory()) {
        ShardedSessions shards = ShardedSessions.of(sessionFactory);
        pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
        ReadWriteMixWorkload workload = new ReadWriteMixWorkload(options, pg, shards);
        List<MixResult> mixes = new ArrayList<>();
        for (long delay : options.delaysMs) {
          setApplyDelay(pg, delay);
          workload.awaitReplicasHealthy();
          for (int threads : options.threads) {
            mixes.add(workload.runMix(threads, delay, true));
            mixes.add(workload.runMix(threads, delay, false));
          }
        }
        List<CaptureResult> captures = new ArrayList<>();
        for (int threads : options.captureThreads) {
          captures.add(workload.runCapture(threads));
        }
        String report = report(options, mixes, captures, Workloads.serverVersion(pg.shard(0).primary()));
        System.out.println();
        System.out.println(report);
        if (options.docs != null) {
          Workloads.writeSection(options.docs, SECTION, BEGIN, END, "", report);
          System.out.println("[rw-bench] results written to " + options.docs);
        }
      }
    }
  }

  // --- the read/write mix -------------------------------------------------------------------

  /** One worker's users: ids, prebuilt routes, and the name it last wrote for each. */
  private static final class Users {
    final long[] ids;
    final ShardRoute[] writeRoutes;
    final ShardRoute[] readRoutes;
    final ConsistencyScope[] scopes;
    final String[] lastWritten;
    final int[] versions;

    Users(int n) {
      ids = new long[n];
      writeRoutes = new ShardRoute[n];
      readRoutes = new ShardRoute[n];
      scopes = new ConsistencyScope[n];
      lastWritten = new String[n];
      versions = new int[n];
    }
  }

  private Users createUsers(Class<? extends BenchProfile> type, String scopePrefix, boolean withScope) {
    Users users = new Users(options.usersPerThread);
    for (int i = 0; i < users.ids.length; i++) {
      long id = nextUser.getAndIncrement();
      String name = id + ":0";
      shards.forKey(id).inTransaction(s -> s.persist(type == RywProfile.class
          ? new RywProfile(id, name) : new PlainProfile(id, name)));
      ShardRoute route = shards.forKey(id);
      if (withScope) {
        users.scopes[i] = shards.consistency().scope(scopePrefix + id);
        route = route.within(users.scopes[i]);
      }
      users.ids[i] = id;
      users.writeRoutes[i] = route;
      users.readRoutes[i] = route.readOnly();
      users.lastWritten[i] = name;
    }
    return users;
  }

  private static final int WARMUP = 0;
  private static final int MEASURE = 1;
  private static final int STOP = 2;

  /** What one mix worker measured; written by its thread, read after it finished. */
  private static final class MixWorker {
    final Users users;
    final LongList readNanos = new LongList();
    final LongList writeNanos = new LongList();
    long staleReads;
    long errors;
    String firstError;

    MixWorker(Users users) {
      this.users = users;
    }
  }

  private MixResult runMix(int threads, long delayMs, boolean ryw) throws Exception {
    String label = String.format(Locale.ROOT, "mix RYW %s, %d threads, apply delay %d ms", ryw ? "on" : "off",
        threads, delayMs);
    System.out.println("[rw-bench] " + label + ": warm-up " + options.warmupSeconds + " s, measure "
        + options.seconds + " s");
    List<MixWorker> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      workers.add(new MixWorker(createUsers(RywProfile.class, "user:", ryw)));
    }
    // without a scope, a read of a row the replica has not replayed yet would find nothing
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
    awaitReplicasHealthy();
    LongAdder ops = new LongAdder();
    AtomicInteger phase = new AtomicInteger(WARMUP);
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      MixWorker w = workers.get(t);
      SplittableRandom random = new SplittableRandom(1000L * threads + t + (ryw ? 7 : 0));
      Thread thread = new Thread(() -> mixLoop(w, random, ops, phase), "rw-bench-mix-" + t);
      thread.start();
      running.add(thread);
    }
    Thread.sleep(options.warmupSeconds * 1000L);
    long[] readsBefore = shards.readCounts();
    long opsBefore = ops.sum();
    phase.set(MEASURE);
    long start = System.nanoTime();
    long[] perSecond = new long[options.seconds];
    long lastOps = opsBefore;
    long[] lastReads = readsBefore;
    for (int s = 0; s < options.seconds; s++) {
      long next = start + (s + 1) * 1_000_000_000L;
      long wait = next - System.nanoTime();
      if (wait > 0) {
        Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
      }
      long nowOps = ops.sum();
      long[] nowReads = shards.readCounts();
      perSecond[s] = nowOps - lastOps;
      System.out.printf(Locale.ROOT, "[rw-bench]   %2d/%d s: %6d ops/s, replicas served %5.1f%% of reads%n", s + 1,
          options.seconds, perSecond[s], share(nowReads[0] - lastReads[0], nowReads[1] - lastReads[1]));
      lastOps = nowOps;
      lastReads = nowReads;
    }
    phase.set(STOP);
    long elapsed = System.nanoTime() - start;
    long[] readsAfter = shards.readCounts();
    long measuredOps = ops.sum() - opsBefore;
    for (Thread thread : running) {
      thread.join();
    }
    MixResult r = new MixResult(label, ryw, threads, delayMs, measuredOps * 1e9 / elapsed, perSecond,
        readsAfter[0] - readsBefore[0], readsAfter[1] - readsBefore[1]);
    for (MixWorker w : workers) {
      r.readNanos.addAll(w.readNanos);
      r.writeNanos.addAll(w.writeNanos);
      r.staleReads += w.staleReads;
      r.errors += w.errors;
      if (r.firstError == null) {
        r.firstError = w.firstError;
      }
    }
    System.out.println("[rw-bench]   " + r.summary());
    return r;
  }

  private void mixLoop(MixWorker w, SplittableRandom random, LongAdder ops, AtomicInteger phase) {
    Users u = w.users;
    int current;
    while ((current = phase.get()) != STOP) {
      int i = random.nextInt(u.ids.length);
      long id = u.ids[i];
      boolean write = random.nextInt(100) < options.writePercent;
      long t0 = System.nanoTime();
      try {
        if (write) {
          String name = id + ":" + (++u.versions[i]);
          u.writeRoutes[i].inTransaction(s -> s.find(RywProfile.class, id).setName(name));
          u.lastWritten[i] = name;
        } else {
          String seen = u.readRoutes[i].fromSession(s -> s.find(RywProfile.class, id).getName());
          if (current == MEASURE && !seen.equals(u.lastWritten[i])) {
            w.staleReads++;
          }
        }
      } catch (RuntimeException e) {
        w.errors++;
        if (w.firstError == null) {
          w.firstError = e.toString();
          System.out.println("[rw-bench]   ERROR in " + Thread.currentThread().getName() + ": " + e);
        }
        continue;
      }
      long took = System.nanoTime() - t0;
      if (current == MEASURE) {
        (write ? w.writeNanos : w.readNanos).add(took);
      }
      ops.increment();
    }
  }

  static final class MixResult {
    final String label;
    final boolean ryw;
    final int threads;
    final long delayMs;
    final double opsPerSecond;
    final long[] perSecond;
    final long replicaReads;
    final long primaryReads;
    final LongList readNanos = new LongList();
    final LongList writeNanos = new LongList();
    long staleReads;
    long errors;
    String firstError;

    MixResult(String label, boolean ryw, int threads, long delayMs, double opsPerSecond, long[] perSecond,
        long replicaReads, long primaryReads) {
      this.label = label;
      this.ryw = ryw;
      this.threads = threads;
      this.delayMs = delayMs;
      this.opsPerSecond = opsPerSecond;
      this.perSecond = perSecond;
      this.replicaReads = replicaReads;
      this.primaryReads = primaryReads;
    }

    double replicaShare() {
      return share(replicaReads, primaryReads);
    }

    String summary() {
      long[] reads = readNanos.sorted();
      long[] writes = writeNanos.sorted();
      return String.format(Locale.ROOT, "%s: %.0f ops/s (per second %d-%d), replicas served %.1f%% of %d reads,"
              + " read p50 %.2f p99 %.2f ms, write p50 %.2f p99 %.2f ms, %d stale reads, %d errors%s",
          label, opsPerSecond, Workloads.min(perSecond), Workloads.max(perSecond), replicaShare(), replicaReads + primaryReads,
          ms(percentile(reads, 0.50)), ms(percentile(reads, 0.99)), ms(percentile(writes, 0.50)),
          ms(percentile(writes, 0.99)), staleReads, errors, firstError == null ? "" : " (first: " + firstError + ")");
    }
  }

  // --- the cost of capturing the LSN --------------------------------------------------------

  private CaptureResult runCapture(int threads) throws Exception {
    System.out.printf(Locale.ROOT, "[rw-bench] LSN capture, %d thread(s): warm-up %d s, then %d pairs of %d ms"
        + " blocks%n", threads, options.warmupSeconds, options.pairs, options.blockMillis);
    List<Users> lsnUsers = new ArrayList<>();
    List<Users> plainUsers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      lsnUsers.add(createUsers(RywProfile.class, "lsn:", true));
      plainUsers.add(createUsers(PlainProfile.class, "plain:", true));
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> new Thread(r, "rw-bench-capture"));
    try {
      long warmupEach = options.warmupSeconds * 500L;
      writeBlock(pool, RywProfile.class, lsnUsers, warmupEach);
      writeBlock(pool, PlainProfile.class, plainUsers, warmupEach);
      CaptureResult r = new CaptureResult(threads);
      for (int p = 0; p < options.pairs; p++) {
        boolean lsnFirst = p % 2 == 0;
        Block first = lsnFirst ? writeBlock(pool, RywProfile.class, lsnUsers, options.blockMillis)
            : writeBlock(pool, PlainProfile.class, plainUsers, options.blockMillis);
        Block second = lsnFirst ? writeBlock(pool, PlainProfile.class, plainUsers, options.blockMillis)
            : writeBlock(pool, RywProfile.class, lsnUsers, options.blockMillis);
        Block lsn = lsnFirst ? first : second;
        Block plain = lsnFirst ? second : first;
        r.add(lsn, plain);
        System.out.printf(Locale.ROOT, "[rw-bench]   pair %d/%d: with capture %.0f ops/s, without %.0f ops/s,"
            + " ratio %.3f%n", p + 1, options.pairs, lsn.opsPerSecond(), plain.opsPerSecond(),
            lsn.opsPerSecond() / plain.opsPerSecond());
      }
      // The comparison only means something if one side captured and pinned and the other did not.
      for (Users u : lsnUsers) {
        for (ConsistencyScope scope : u.scopes) {
          if (shards.consistency().pins(scope).isEmpty()) {
            throw new IllegalStateException("A @ReadYourWrites(LSN) write within " + scope + " left no pin");
          }
        }
      }
      for (Users u : plainUsers) {
        for (ConsistencyScope scope : u.scopes) {
          if (!shards.consistency().pins(scope).isEmpty()) {
            throw new IllegalStateException("A write without @ReadYourWrites within " + scope + " pinned it: "
                + shards.consistency().pins(scope));
          }
        }
      }
      System.out.println("[rw-bench]   " + r.summary());
      return r;
    } finally {
      pool.shutdownNow();
    }
  }

  private record Block(long ops, long nanos, long[] latencies, long errors) {
    double opsPerSecond() {
      return ops * 1e9 / nanos;
    }
  }

  /** Every thread renames its own users, in write transactions within their scopes, for {@code millis}. */
  private Block writeBlock(ExecutorService pool, Class<? extends BenchProfile> type, List<Users> perThread,
      long millis) throws Exception {
    CountDownLatch ready = new CountDownLatch(perThread.size());
    CountDownLatch go = new CountDownLatch(1);
    long[] deadline = new long[1];
    List<Future<Block>> futures = new ArrayList<>();
    for (Users u : perThread) {
      futures.add(pool.submit(() -> {
        LongList latencies = new LongList();
        long errors = 0;
        ready.countDown();
        go.await();
        long end = deadline[0];
        long n = 0;
        SplittableRandom random = new SplittableRandom(u.ids[0]);
        long t0 = System.nanoTime();
        while (t0 < end) {
          int i = random.nextInt(u.ids.length);
          long id = u.ids[i];
          String name = id + ":" + (++u.versions[i]);
          try {
            u.writeRoutes[i].inTransaction(s -> s.find(type, id).setName(name));
          } catch (RuntimeException e) {
            if (errors++ == 0) {
              System.out.println("[rw-bench]   ERROR in LSN capture block: " + e);
            }
          }
          long t1 = System.nanoTime();
          latencies.add(t1 - t0);
          n++;
          t0 = t1;
        }
        return new Block(n, 0, latencies.sorted(), errors);
      }));
    }
    ready.await();
    long start = System.nanoTime();
    deadline[0] = start + millis * 1_000_000;  // published to the workers by the latch
    go.countDown();
    long ops = 0;
    long errors = 0;
    LongList all = new LongList();
    for (Future<Block> f : futures) {
      Block b = f.get();
      ops += b.ops;
      errors += b.errors;
      all.addAll(b.latencies);
    }
    // the last transaction of each thread may end after the deadline: count the time it took
    return new Block(ops, System.nanoTime() - start, all.sorted(), errors);
  }

  static final class CaptureResult {
    final int threads;
    long lsnOps;
    long lsnNanos;
    long plainOps;
    long plainNanos;
    long errors;
    final LongList lsnLatencies = new LongList();
    final LongList plainLatencies = new LongList();
    final List<Double> pairRatios = new ArrayList<>();

    CaptureResult(int threads) {
      this.threads = threads;
    }

    void add(Block lsn, Block plain) {
      lsnOps += lsn.ops;
      lsnNanos += lsn.nanos;
      plainOps += plain.ops;
      plainNanos += plain.nanos;
      errors += lsn.errors + plain.errors;
      lsnLatencies.addAll(lsn.latencies);
      plainLatencies.addAll(plain.latencies);
      pairRatios.add(lsn.opsPerSecond() / plain.opsPerSecond());
    }

    double lsnOpsPerSecond() {
      return lsnOps * 1e9 / lsnNanos;
    }

    double plainOpsPerSecond() {
      return plainOps * 1e9 / plainNanos;
    }

    double ratio() {
      return lsnOpsPerSecond() / plainOpsPerSecond();
    }

    double minRatio() {
      return pairRatios.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    double maxRatio() {
      return pairRatios.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    String summary() {
      return String.format(Locale.ROOT, "LSN capture, %d thread(s): with %.0f ops/s, without %.0f ops/s, ratio %.3f"
              + " (pairs %.3f-%.3f), p50 %.2f vs %.2f ms, %d errors", threads, lsnOpsPerSecond(), plainOpsPerSecond(),
          ratio(), minRatio(), maxRatio(), ms(percentile(lsnLatencies.sorted(), 0.5)),
          ms(percentile(plainLatencies.sorted(), 0.5)), errors);
    }
  }

  // --- topology -----------------------------------------------------------------------------

  private static void setApplyDelay(PostgresTopology pg, long delayMs) {
    System.out.println("[rw-bench] replica apply delay (recovery_min_apply_delay): " + delayMs + " ms");
    for (PostgresShard shard : pg.shards()) {
      if (delayMs == 0) {
        shard.replica(0).clearApplyDelay();
      } else {
        shard.replica(0).setApplyDelay(Duration.ofMillis(delayMs));
      }
    }
  }

  /** A replica out of rotation would turn the whole measurement into a primary-only one: wait, else fail. */
  private void awaitReplicasHealthy() throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (true) {
      shards.checkReplicasNow();
      List<ReplicaStatus> status = shards.replicaStatus();
      if (status.stream().allMatch(ReplicaStatus::healthy)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("Replicas not healthy after 30 s: " + status);
      }
      Thread.sleep(100);
    }
  }


  // --- report -------------------------------------------------------------------------------

  static String report(Options o, List<MixResult> mixes, List<CaptureResult> captures, String postgres) {
    StringBuilder b = new StringBuilder();
    b.append(BEGIN).append("\n\n");
    b.append(String.format(Locale.ROOT, "Run of %s. Machine: %d cores as the JVM sees them (shared with other"
            + " builds), %s %s, %s %s; PostgreSQL %s from the testkit's embedded bundle, all four servers on the"
            + " same machine as the workload. Settings: %s.%n%n",
        LocalDate.now(), Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"),
        System.getProperty("java.version"), System.getProperty("os.name"), System.getProperty("os.arch"), postgres,
        o));
    b.append("Read/write mix (").append(100 - o.writePercent).append('/').append(o.writePercent)
        .append(", ").append(o.usersPerThread).append(" users per thread, ").append(o.seconds)
        .append(" s measured after ").append(o.warmupSeconds).append(" s warm-up):\n\n");
    b.append("| Apply delay | RYW | Threads | Replica share of reads | ops/s (per-second min–max) | Read p50 / p99 ms"
        + " | Write p50 / p99 ms | Stale reads | Errors |\n");
    b.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (MixResult r : mixes) {
      long[] reads = r.readNanos.sorted();
      long[] writes = r.writeNanos.sorted();
      b.append(String.format(Locale.ROOT, "| %d ms | %s | %d | %.1f %% | %.0f (%d–%d) | %.2f / %.2f | %.2f / %.2f"
              + " | %d of %d | %d |%n", r.delayMs, r.ryw ? "on (LSN, scope per user)" : "off (no scope)", r.threads,
          r.replicaShare(), r.opsPerSecond, Workloads.min(r.perSecond), Workloads.max(r.perSecond), ms(percentile(reads, 0.5)),
          ms(percentile(reads, 0.99)), ms(percentile(writes, 0.5)), ms(percentile(writes, 0.99)), r.staleReads,
          reads.length, r.errors));
    }
    b.append("\nLSN capture per write transaction (").append(o.pairs).append(" pairs of ").append(o.blockMillis)
        .append(" ms blocks in ABBA order, after ").append(o.warmupSeconds).append(" s warm-up):\n\n");
    b.append("| Threads | With capture (`@ReadYourWrites(LSN)`) ops/s | Without ops/s | Ratio | Ratio per pair"
        + " min–max | p50 ms with / without | Errors |\n");
    b.append("|---:|---:|---:|---:|---:|---:|---:|\n");
    for (CaptureResult c : captures) {
      b.append(String.format(Locale.ROOT, "| %d | %.0f | %.0f | %.3f | %.3f–%.3f | %.2f / %.2f | %d |%n", c.threads,
          c.lsnOpsPerSecond(), c.plainOpsPerSecond(), c.ratio(), c.minRatio(), c.maxRatio(),
          ms(percentile(c.lsnLatencies.sorted(), 0.5)), ms(percentile(c.plainLatencies.sorted(), 0.5)), c.errors));
    }
    b.append('\n').append(END);
    return b.toString();
  }

  // --- small helpers ------------------------------------------------------------------------

  static double share(long replica, long primary) {
    long total = replica + primary;
    return total == 0 ? Double.NaN : 100.0 * replica / total;
  }



  /** Command-line settings, {@code key=value}. */
  static final class Options {
    int seconds = 10;
    int warmupSeconds = 3;
    int[] threads = {2, 4};
    int usersPerThread = 4;
    int writePercent = 10;
    long[] delaysMs = {0, 100};
    long blockMillis = 1000;
    int pairs = 6;
    int[] captureThreads = {1, 2};
    Path docs = Path.of("docs", "benchmarks.md");

    static Options parse(String[] args) {
      Options o = new Options();
      for (Map.Entry<String, String> arg : Workloads.keyValues(args, "seconds, warmup, threads, users, writes, delays, block, pairs, captureThreads, docs").entrySet()) {
        String key = arg.getKey();
        String value = arg.getValue();
        try {
          switch (key) {
            case "seconds" -> o.seconds = Workloads.positive(key, Integer.parseInt(value));
            case "warmup" -> o.warmupSeconds = Integer.parseInt(value);
            case "threads" -> o.threads = ints(key, value);
            case "users" -> o.usersPerThread = Workloads.positive(key, Integer.parseInt(value));
            case "writes" -> o.writePercent = Integer.parseInt(value);
            case "delays" -> o.delaysMs = Arrays.stream(value.split(",")).mapToLong(v -> Long.parseLong(v.trim()))
                .toArray();
            case "block" -> o.blockMillis = Workloads.positive(key, Integer.parseInt(value));
            case "pairs" -> o.pairs = Workloads.positive(key, Integer.parseInt(value));
            case "captureThreads" -> o.captureThreads = ints(key, value);
            case "docs" -> o.docs = value.equals("none") ? null : Path.of(value);
            default -> throw new IllegalArgumentException("Unknown option '" + key + "': use seconds, warmup,"
                + " threads, users, writes, delays, block, pairs, captureThreads or docs");
          }
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("Option " + key + " needs a number (or a comma-separated list),"
              + " got '" + value + "'");
        }
      }
      if (o.writePercent < 0 || o.writePercent > 100) {
        throw new IllegalArgumentException("writes is a percentage, 0-100; got " + o.writePercent);
      }
      if (o.docs != null && !Files.isRegularFile(o.docs)) {
        throw new IllegalArgumentException("Results go to " + o.docs.toAbsolutePath() + ", which does not exist:"
            + " run from the repository root, or pass docs=<file> or docs=none");
      }
      return o;
    }

    private static int[] ints(String key, String value) {
      int[] parsed = Arrays.stream(value.split(",")).mapToInt(v -> Integer.parseInt(v.trim())).toArray();
      for (int v : parsed) {
        Workloads.positive(key, v);
      }
      return parsed;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "seconds=%d warmup=%d threads=%s users=%d writes=%d delays=%s block=%d"
              + " pairs=%d captureThreads=%s", seconds, warmupSeconds, join(threads), usersPerThread, writePercent,
          join(delaysMs), blockMillis, pairs, join(captureThreads));
    }

    private static String join(int[] values) {
      return String.join(",", Arrays.stream(values).mapToObj(Integer::toString).toList());
    }

    private static String join(long[] values) {
      return String.join(",", Arrays.stream(values).mapToObj(Long::toString).toList());
    }
  }
}
