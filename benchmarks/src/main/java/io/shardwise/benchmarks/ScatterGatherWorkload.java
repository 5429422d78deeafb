package io.shardwise.benchmarks;

import static io.shardwise.benchmarks.Workloads.ms;
import static io.shardwise.benchmarks.Workloads.percentile;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.scatter.ScatterResult;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.hibernate.SessionFactory;

/**
 * Cross-shard reads on a real three-shard topology (testkit), in one run:
 *
 * <ol>
 *   <li><b>Fan-out with one slow shard.</b> An aggregate query without the shard key
 *       ({@code count} and {@code sum} of one status) through {@code shards.scatter()}, which asks
 *       every shard in parallel, against a sequential fan-out written here: the same per-shard query,
 *       shard after shard, each on {@code shards.forShard(id).readOnly()}, partial results added up.
 *       One shard is slowed by an immutable SQL function that sleeps; the query calls it, so
 *       PostgreSQL sleeps once per statement, while planning. The other shards can be given a
 *       (smaller) sleep of their own, standing for real per-shard work. The two fan-outs alternate
 *       (ABBA), so drift on a shared machine hits both alike.</li>
 *   <li><b>{@code @GlobalIndex} lookup against a scatter find.</b> {@code shards.findBy(ScatterAccount,
 *       "email", value)} (index row on the value's shard, then the entity from its own shard) against
 *       {@code shards.scatter()} with {@code where a.email = :email} (every shard, each with an
 *       ordinary index on email), for the same random emails, in blocks ordered ABBA, per number of
 *       caller threads.</li>
 * </ol>
 *
 * <p>The plan cache is set to {@code force_custom_plan} on every shard: once the JDBC driver prepares
 * a statement on the server, PostgreSQL may switch to a generic plan, folds the sleeping function
 * once and caches the result, and the slow shard would quietly stop being slow.
 *
 * <p>Progress goes to standard output; the results replace the generated part of the section
 * "Cross-shard queries" in {@code docs/benchmarks.md} (appended when missing), when run from the
 * repository root:
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.ScatterGatherWorkload
 * </pre>
 *
 * Options, as {@code key=value} arguments: {@code rows=3000}, {@code batch=100} (rows per load
 * transaction), {@code slowShard=2}, {@code slowMs=100}, {@code otherMs=0,20} (sleep of the other
 * shards, one measurement each), {@code iterations=60}, {@code warmup=5} (fan-out iterations),
 * {@code lookups=2000}, {@code lookupWarmup=200} (per lookup kind), {@code threads=1,4} (caller
 * threads for the lookups), {@code seed=42}, {@code docs=docs/benchmarks.md} ({@code none} to leave
 * the file alone).
 */
public final class ScatterGatherWorkload {
  static final String SECTION = "## Cross-shard queries";
  static final String BEGIN = "<!-- ScatterGatherWorkload:begin (generated; rerun the workload to replace) -->";
  static final String END = "<!-- ScatterGatherWorkload:end -->";
  private static final String TAG = "[scatter-bench] ";

  static final String STATUS = "ACTIVE";
  static final String SLOW_HQL = "select count(a), sum(a.balanceCents) from ScatterAccount a where a.status = :status"
      + " and cast(function('bench_delay') as Integer) = 1";
  /**
   * {@link #SLOW_HQL} as the SQL it renders to, for the sequential baseline: that runs one shard's
   * part by hand, and the shard-key guard (rightly) refuses the unpinned HQL outside the scatter API.
   */
  static final String SLOW_SQL = "select count(*), sum(a.balance_cents) from scatter_account a"
      + " where a.status = :status and cast(bench_delay() as integer) = 1";
  static final String FIND_HQL = "from ScatterAccount a where a.email = :email";


  private final Options options;
  private final PostgresTopology pg;
  private final ShardedSessions shards;
  private final List<String> shardIds;

  private ScatterGatherWorkload(Options options, PostgresTopology pg, ShardedSessions shards) {
    this.options = options;
    this.pg = pg;
    this.shards = shards;
    this.shardIds = shards.shardIds().stream().sorted().toList();
  }

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    Workloads.quietLibraries();
    System.out.println(TAG + options);
    double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    System.out.println(TAG + "starting 3 shards ...");
    try (PostgresTopology pg = PostgresTopology.builder().shards(3).start()) {
      System.out.printf(Locale.ROOT, "%stopology up in %d ms%n", TAG, pg.startupTime().toMillis());
      if (options.slowShard >= pg.shards().size()) {
        throw new IllegalArgumentException("slowShard=" + options.slowShard + ": there are " + pg.shards().size()
            + " shards");
      }
      for (PostgresShard shard : pg.shards()) {
        // before the pools open: the setting applies to new connections
        execute(shard, "ALTER DATABASE postgres SET plan_cache_mode = force_custom_plan");
        execute(shard, delayFunction(0));
      }
      Shardwise.Builder builder = Shardwise.configure().credentials("postgres", null).ddl("create")
          .schema("create")
          .entities(ScatterAccount.class);
      for (PostgresShard shard : pg.shards()) {
        builder.shard("shard" + shard.index(), shard.primary().jdbcUrl());
      }
      try (SessionFactory sessionFactory = builder.buildSessionFactory()) {
        ShardedSessions shards = ShardedSessions.of(sessionFactory);
        ScatterGatherWorkload workload = new ScatterGatherWorkload(options, pg, shards);
        workload.load();
        List<FanOutResult> fanOuts = new ArrayList<>();
        for (long otherMs : options.otherMs) {
          fanOuts.add(workload.runFanOut(otherMs));
        }
        workload.setDelays(0);
        List<LookupResult> lookups = new ArrayList<>();
        for (int threads : options.threads) {
          lookups.add(workload.runLookups(threads));
        }
        double loadAfter = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        String report = report(options, fanOuts, lookups, Workloads.serverVersion(pg.shard(0).primary()), loadBefore, loadAfter);
        System.out.println();
        System.out.println(report);
        if (options.docs != null) {
          Workloads.writeSection(options.docs, SECTION, BEGIN, END, INTRO, report);
          System.out.println(TAG + "results written to " + options.docs);
        }
      }
    }
  }

  // --- loading ------------------------------------------------------------------------------

  static String email(long id) {
    return "acct" + id + "@example.com";
  }

  private static ScatterAccount account(long id) {
    return new ScatterAccount(id, email(id), id % 4 == 0 ? "CLOSED" : STATUS, (id * 7919) % 100_000);
  }

  /** Rows 1..rows, persisted per shard in transactions of {@code batch} rows; the global index is written with them. */
  private void load() throws SQLException {
    Map<String, List<Long>> byShard = new LinkedHashMap<>();
    shardIds.forEach(id -> byShard.put(id, new ArrayList<>()));
    for (long id = 1; id <= options.rows; id++) {
      byShard.get(shards.shardFor(id)).add(id);
    }
    System.out.println(TAG + "loading " + options.rows + " rows ("
        + byShard.entrySet().stream().map(e -> e.getKey() + ": " + e.getValue().size()).collect(Collectors.joining(", "))
        + "), " + options.batch + " per transaction, with their global index rows ...");
    long started = System.nanoTime();
    int done = 0;
    int nextReport = Math.max(1, options.rows / 10);
    List<List<Long>> batches = new ArrayList<>();
    for (List<Long> ids : byShard.values()) {
      for (int from = 0; from < ids.size(); from += options.batch) {
        batches.add(ids.subList(from, Math.min(ids.size(), from + options.batch)));
      }
    }
    // round robin over the shards, so that progress covers all of them alike
    batches.sort((a, b) -> Long.compare(a.get(0) / options.batch, b.get(0) / options.batch));
    for (List<Long> batch : batches) {
      shards.forShard(shards.shardFor(batch.get(0))).inTransaction(session -> batch.forEach(id -> session.persist(account(id))));
      done += batch.size();
      if (done >= nextReport || done == options.rows) {
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf(Locale.ROOT, "%sloaded %d/%d rows (%d%%), %.0f rows/s%n", TAG, done, options.rows,
            100L * done / options.rows, done / seconds);
        nextReport += Math.max(1, options.rows / 10);
      }
    }
    long entities = 0;
    long indexRows = 0;
    for (PostgresShard shard : pg.shards()) {
      entities += Workloads.count(shard.primary(), "SELECT count(*) FROM scatter_account");
      indexRows += Workloads.count(shard.primary(), "SELECT count(*) FROM shardwise.gidx_scatteraccount_email");
    }
    if (entities != options.rows || indexRows != options.rows) {
      throw new IllegalStateException("loaded " + entities + " entities and " + indexRows + " global index rows, expected "
          + options.rows + " of each");
    }
    for (PostgresShard shard : pg.shards()) {
      execute(shard, "ANALYZE scatter_account");
      execute(shard, "ANALYZE shardwise.gidx_scatteraccount_email");
    }
    System.out.printf(Locale.ROOT, "%sloaded in %.1f s; %d entity rows and %d index rows over the shards%n", TAG,
        (System.nanoTime() - started) / 1e9, entities, indexRows);
  }

  // --- a. fan-out with one slow shard -------------------------------------------------------

  private static String delayFunction(long ms) {
    return "CREATE OR REPLACE FUNCTION bench_delay() RETURNS int IMMUTABLE LANGUAGE sql AS $$ SELECT 1 FROM pg_sleep("
        + String.format(Locale.ROOT, "%.3f", ms / 1000.0) + ") $$";
  }

  /** The slow shard sleeps {@code slowMs} per statement, every other shard {@code otherMs}. */
  private void setDelays(long otherMs) throws SQLException {
    for (PostgresShard shard : pg.shards()) {
      execute(shard, delayFunction(shard.index() == options.slowShard ? options.slowMs : otherMs));
    }
  }

  /** Count and sum over all shards, in a {@code long[2]}. */
  private long[] parallel(long[] shardNanos) {
    ScatterResult<Object[]> result = shards.scatter().createQuery(SLOW_HQL, Object[].class)
        .setParameter("status", STATUS).getResult();
    if (!result.isComplete()) {
      throw new IllegalStateException("scatter query incomplete: " + result.missingShards());
    }
    for (int i = 0; i < shardIds.size(); i++) {
      Duration d = result.shardTimes().get(shardIds.get(i));
      shardNanos[i] = d == null ? -1 : d.toNanos();
    }
    Object[] row = result.rows().get(0);
    return new long[] {asLong(row[0]), asLong(row[1])};
  }

  /** The same, shard after shard: the sequential baseline. */
  private long[] sequential(long[] shardNanos) {
    long[] total = new long[2];
    for (int i = 0; i < shardIds.size(); i++) {
      long started = System.nanoTime();
      Object[] row = shards.forShard(shardIds.get(i)).readOnly().fromSession(session ->
          session.createNativeQuery(SLOW_SQL, Object[].class).setParameter("status", STATUS).getSingleResult());
      shardNanos[i] = System.nanoTime() - started;
      total[0] += asLong(row[0]);
      total[1] += asLong(row[1]);
    }
    return total;
  }

  private static long asLong(Object value) {
    return value == null ? 0 : ((Number) value).longValue();
  }

  private FanOutResult runFanOut(long otherMs) throws SQLException {
    setDelays(otherMs);
    String label = String.format(Locale.ROOT, "fan-out, shard%d sleeps %d ms, the others %d ms", options.slowShard,
        options.slowMs, otherMs);
    int shardCount = shardIds.size();
    long[] scratch = new long[shardCount];
    long[] expected = new long[2];
    for (long id = 1; id <= options.rows; id++) {
      ScatterAccount a = account(id);
      if (a.getStatus().equals(STATUS)) {
        expected[0]++;
        expected[1] += a.getBalanceCents();
      }
    }
    System.out.println(TAG + label + ": warm-up " + options.warmup + " x 2, measure " + options.iterations + " x 2");
    for (int i = 0; i < options.warmup; i++) {
      check(parallel(scratch), expected, "parallel");
      check(sequential(scratch), expected, "sequential");
    }
    int n = options.iterations;
    long[] par = new long[n];
    long[] seq = new long[n];
    long[][] parShard = new long[shardCount][n];
    long[][] seqShard = new long[shardCount][n];
    for (int i = 0; i < n; i++) {
      boolean parallelFirst = i % 4 == 0 || i % 4 == 3; // ABBA
      for (int k = 0; k < 2; k++) {
        boolean runParallel = (k == 0) == parallelFirst;
        long started = System.nanoTime();
        long[] got = runParallel ? parallel(scratch) : sequential(scratch);
        long elapsed = System.nanoTime() - started;
        check(got, expected, runParallel ? "parallel" : "sequential");
        (runParallel ? par : seq)[i] = elapsed;
        for (int s = 0; s < shardCount; s++) {
          (runParallel ? parShard : seqShard)[s][i] = scratch[s];
        }
      }
      if ((i + 1) % Math.max(1, n / 5) == 0 || i + 1 == n) {
        System.out.printf(Locale.ROOT, "%s  %d/%d: parallel mean %.1f ms, sequential mean %.1f ms%n", TAG, i + 1, n,
            mean(par, i + 1) / 1e6, mean(seq, i + 1) / 1e6);
      }
    }
    FanOutResult result = new FanOutResult(otherMs, Stats.of(par), Stats.of(seq), shardMeans(parShard),
        shardMeans(seqShard));
    long floor = options.slowMs * 1_000_000L;
    if (result.parallel.min < floor || result.sequential.min < floor) {
      System.out.println(TAG + "WARNING: a run took less than the slow shard's sleep: the sleep did not happen every time");
    }
    System.out.printf(Locale.ROOT, "%s%s: parallel %s | sequential %s | sequential/parallel mean %.2fx%n", TAG, label,
        result.parallel, result.sequential, result.sequential.mean / result.parallel.mean);
    return result;
  }

  private static void check(long[] got, long[] expected, String what) {
    if (!Arrays.equals(got, expected)) {
      throw new IllegalStateException(what + " fan-out returned count/sum " + Arrays.toString(got) + ", expected "
          + Arrays.toString(expected));
    }
  }

  private static double[] shardMeans(long[][] perShard) {
    double[] means = new double[perShard.length];
    for (int s = 0; s < perShard.length; s++) {
      means[s] = mean(perShard[s], perShard[s].length);
    }
    return means;
  }

  // --- b. @GlobalIndex lookup against a scatter find -----------------------------------------

  private enum Lookup {
    INDEX("findBy (@GlobalIndex)"),
    SCATTER("scatter where email =");

    final String label;

    Lookup(String label) {
      this.label = label;
    }
  }

  private void lookup(Lookup kind, long id) {
    String email = email(id);
    ScatterAccount found;
    if (kind == Lookup.INDEX) {
      found = shards.findBy(ScatterAccount.class, "email", email).orElseThrow(
          () -> new IllegalStateException("findBy found no account for " + email));
    } else {
      List<ScatterAccount> rows = shards.scatter().createQuery(FIND_HQL, ScatterAccount.class)
          .setParameter("email", email).getResultList();
      if (rows.size() != 1) {
        throw new IllegalStateException("scatter find of " + email + " returned " + rows.size() + " rows");
      }
      found = rows.get(0);
    }
    if (found.getId() != id || !found.getEmail().equals(email)) {
      throw new IllegalStateException(kind + " lookup of " + email + " returned account " + found.getId());
    }
  }

  /** Runs {@code ids} on {@code threads} threads; fills {@code latencies} and returns the wall time. */
  private long block(Lookup kind, long[] ids, int threads, long[] latencies) throws Exception {
    AtomicInteger next = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> futures = new ArrayList<>();
      long started = System.nanoTime();
      for (int t = 0; t < threads; t++) {
        futures.add(pool.submit(() -> {
          for (int i = next.getAndIncrement(); i < ids.length; i = next.getAndIncrement()) {
            long s = System.nanoTime();
            lookup(kind, ids[i]);
            latencies[i] = System.nanoTime() - s;
          }
          return null;
        }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
      return System.nanoTime() - started;
    } finally {
      pool.shutdownNow();
    }
  }

  private LookupResult runLookups(int threads) throws Exception {
    SplittableRandom random = new SplittableRandom(options.seed + threads);
    long[] warm = random.longs(options.lookupWarmup, 1, options.rows + 1).toArray();
    long[] first = random.longs(options.lookups / 2, 1, options.rows + 1).toArray();
    long[] second = random.longs(options.lookups - options.lookups / 2, 1, options.rows + 1).toArray();
    System.out.printf(Locale.ROOT, "%slookups on %d thread(s): warm-up %d, measure %d per kind (blocks ABBA)%n", TAG,
        threads, warm.length, first.length + second.length);
    block(Lookup.INDEX, warm, threads, new long[warm.length]);
    block(Lookup.SCATTER, warm, threads, new long[warm.length]);

    Map<Lookup, long[]> latencies = new LinkedHashMap<>();
    Map<Lookup, Long> wall = new LinkedHashMap<>();
    for (Lookup kind : Lookup.values()) {
      latencies.put(kind, new long[first.length + second.length]);
      wall.put(kind, 0L);
    }
    Lookup[] order = {Lookup.INDEX, Lookup.SCATTER, Lookup.SCATTER, Lookup.INDEX};
    boolean[] secondHalf = {false, false, true, true};
    for (int b = 0; b < order.length; b++) {
      Lookup kind = order[b];
      long[] ids = secondHalf[b] ? second : first;
      long[] lat = new long[ids.length];
      long elapsed = block(kind, ids, threads, lat);
      System.arraycopy(lat, 0, latencies.get(kind), secondHalf[b] ? first.length : 0, lat.length);
      wall.merge(kind, elapsed, Long::sum);
      System.out.printf(Locale.ROOT, "%s  block %d/4 %s: %d lookups, %.0f ops/s%n", TAG, b + 1, kind.label, ids.length,
          ids.length / (elapsed / 1e9));
    }
    int total = first.length + second.length;
    LookupResult result = new LookupResult(threads,
        total / (wall.get(Lookup.INDEX) / 1e9), Stats.of(latencies.get(Lookup.INDEX)),
        total / (wall.get(Lookup.SCATTER) / 1e9), Stats.of(latencies.get(Lookup.SCATTER)));
    System.out.printf(Locale.ROOT, "%s%d thread(s): findBy %.0f ops/s %s | scatter %.0f ops/s %s | findBy/scatter"
        + " ops/s %.2fx%n", TAG, threads, result.indexOps, result.index, result.scatterOps, result.scatter,
        result.indexOps / result.scatterOps);
    return result;
  }

  // --- report -------------------------------------------------------------------------------

  record Stats(double mean, long p50, long p99, long min, long max) {
    static Stats of(long[] nanos) {
      long[] sorted = nanos.clone();
      Arrays.sort(sorted);
      return new Stats(ScatterGatherWorkload.mean(sorted, sorted.length), (long) percentile(sorted, 0.50), (long) percentile(sorted, 0.99), sorted[0],
          sorted[sorted.length - 1]);
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "mean %.2f / p50 %.2f / p99 %.2f / min %.2f ms", mean / 1e6, ms(p50), ms(p99),
          ms(min));
    }
  }

  record FanOutResult(long otherMs, Stats parallel, Stats sequential, double[] parallelShardMeans,
      double[] sequentialShardMeans) {}

  record LookupResult(int threads, double indexOps, Stats index, double scatterOps, Stats scatter) {}

  static String report(Options o, List<FanOutResult> fanOuts, List<LookupResult> lookups, String postgres,
      double loadBefore, double loadAfter) {
    StringBuilder b = new StringBuilder();
    b.append(BEGIN).append("\n\n");
    b.append(String.format(Locale.ROOT, "One run, %s. Machine: %d cores as the JVM sees them, shared with other builds"
            + " and busy (load average %.1f at the start, %.1f at the end); %s %s, %s %s; PostgreSQL %s from the"
            + " testkit's embedded bundle, the three shards and the workload on the same machine. %d rows"
            + " (%d per shard on average), settings: %s.%n%n",
        LocalDate.now(), Runtime.getRuntime().availableProcessors(), loadBefore, loadAfter,
        System.getProperty("os.name"), System.getProperty("os.arch"), System.getProperty("java.vm.name"),
        System.getProperty("java.version"), postgres, o.rows, o.rows / 3, o));

    b.append(String.format(Locale.ROOT, "**a. One slow shard: parallel versus sequential fan-out.** `%s`, %d iterations"
        + " per fan-out after %d warm-up, alternating ABBA. shard%d sleeps %d ms per statement; \"other shards\" is the"
        + " sleep of the two others. Per-shard times: from submission to its last row (parallel, Shardwise's"
        + " `shardTimes()`), or the shard's turn (sequential).%n%n", SLOW_HQL, o.iterations, o.warmup, o.slowShard,
        o.slowMs));
    b.append("| other shards | fan-out | mean ms | p50 ms | p99 ms | min ms | per-shard mean ms (shard0 / 1 / 2) |"
        + " sequential ÷ parallel (mean / p50 / p99) |\n");
    b.append("|---:|---|---:|---:|---:|---:|---|---|\n");
    for (FanOutResult r : fanOuts) {
      b.append(String.format(Locale.ROOT, "| %d ms | parallel (`shards.scatter()`) | %.1f | %.1f | %.1f | %.1f | %s | |%n",
          r.otherMs, r.parallel.mean / 1e6, ms(r.parallel.p50), ms(r.parallel.p99), ms(r.parallel.min),
          shardColumn(r.parallelShardMeans)));
      b.append(String.format(Locale.ROOT, "| %d ms | sequential (`forShard(id)` in turn) | %.1f | %.1f | %.1f | %.1f"
              + " | %s | **%.2fx** / %.2fx / %.2fx |%n",
          r.otherMs, r.sequential.mean / 1e6, ms(r.sequential.p50), ms(r.sequential.p99), ms(r.sequential.min),
          shardColumn(r.sequentialShardMeans), r.sequential.mean / r.parallel.mean,
          (double) r.sequential.p50 / r.parallel.p50, (double) r.sequential.p99 / r.parallel.p99));
    }

    b.append(String.format(Locale.ROOT, "%n**b. Find by email: `@GlobalIndex` versus scatter.** `shards.findBy(ScatterAccount"
        + ".class, \"email\", e)` against `shards.scatter().createQuery(\"%s\")` for the same random existing emails,"
        + " %d lookups per kind after %d warm-up, in blocks ordered ABBA; every answer checked. Caller threads share"
        + " one Shardwise runtime (default pools, scatter executor of 6 threads).%n%n", FIND_HQL, o.lookups,
        o.lookupWarmup));
    b.append("| caller threads | lookup | ops/s | mean ms | p50 ms | p99 ms | findBy ÷ scatter (ops/s) |"
        + " scatter ÷ findBy (p50 / p99) |\n");
    b.append("|---:|---|---:|---:|---:|---:|---|---|\n");
    for (LookupResult r : lookups) {
      b.append(String.format(Locale.ROOT, "| %d | `findBy` (@GlobalIndex) | %,.0f | %.2f | %.2f | %.2f | | |%n",
          r.threads, r.indexOps, r.index.mean / 1e6, ms(r.index.p50), ms(r.index.p99)));
      b.append(String.format(Locale.ROOT, "| %d | scatter `where a.email = :email` | %,.0f | %.2f | %.2f | %.2f |"
              + " **%.2fx** | %.2fx / %.2fx |%n",
          r.threads, r.scatterOps, r.scatter.mean / 1e6, ms(r.scatter.p50), ms(r.scatter.p99),
          r.indexOps / r.scatterOps, (double) r.scatter.p50 / r.index.p50, (double) r.scatter.p99 / r.index.p99));
    }
    b.append("\n").append(END).append("\n");
    return b.toString();
  }

  private static String shardColumn(double[] means) {
    return Arrays.stream(means).mapToObj(m -> String.format(Locale.ROOT, "%.1f", m / 1e6))
        .collect(Collectors.joining(" / "));
  }

  static final String INTRO = """
      `ScatterGatherWorkload` measures, on a testkit topology of three shards (one PostgreSQL each),
      (a) a query without the shard key through `shards.scatter()` with one shard slowed, against a
      sequential fan-out that runs the same per-shard query shard after shard, and (b) a find by a
      `@GlobalIndex` attribute (`shards.findBy`) against a scatter query for the same find. It loads
      its rows itself, with progress, and rewrites the generated block below. Run from the
      repository root:

      ```
      mvn -B -q -pl benchmarks -am package -DskipTests && java -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.ScatterGatherWorkload
      ```

      Options as `key=value` arguments (defaults in the run's settings below), e.g. `iterations=20
      lookups=500 otherMs=0` for a quicker run, `docs=none` to leave this file alone. The slow shard
      runs an immutable SQL function that calls `pg_sleep`, which PostgreSQL evaluates once per
      statement while planning; `plan_cache_mode = force_custom_plan` on every shard keeps a cached
      generic plan from skipping it.
      """;

  // --- small helpers ------------------------------------------------------------------------

  private static void execute(PostgresShard shard, String sql) throws SQLException {
    try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }


  static double mean(long[] values, int n) {
    long sum = 0;
    for (int i = 0; i < n; i++) {
      sum += values[i];
    }
    return n == 0 ? Double.NaN : (double) sum / n;
  }


  // --- options ------------------------------------------------------------------------------

  static final class Options {
    int rows = 3000;
    int batch = 100;
    int slowShard = 2;
    long slowMs = 100;
    long[] otherMs = {0, 20};
    int iterations = 60;
    int warmup = 5;
    int lookups = 2000;
    int lookupWarmup = 200;
    int[] threads = {1, 4};
    long seed = 42;
    Path docs = Path.of("docs/benchmarks.md");

    static Options parse(String[] args) {
      Options o = new Options();
      for (Map.Entry<String, String> arg : Workloads.keyValues(args, "rows, batch, slowShard, slowMs, otherMs, iterations, warmup, lookups, lookupWarmup, threads, seed, docs").entrySet()) {
        String key = arg.getKey();
        String value = arg.getValue();
        switch (key) {
          case "rows" -> o.rows = Workloads.positive(key, Integer.parseInt(value));
          case "batch" -> o.batch = Workloads.positive(key, Integer.parseInt(value));
          case "slowShard" -> o.slowShard = Integer.parseInt(value);
          case "slowMs" -> o.slowMs = Workloads.positive(key, Integer.parseInt(value));
          case "otherMs" -> o.otherMs = Arrays.stream(value.split(",")).mapToLong(v -> Long.parseLong(v.trim())).toArray();
          case "iterations" -> o.iterations = Workloads.positive(key, Integer.parseInt(value));
          case "warmup" -> o.warmup = Integer.parseInt(value);
          case "lookups" -> o.lookups = Math.max(2, Workloads.positive(key, Integer.parseInt(value)));
          case "lookupWarmup" -> o.lookupWarmup = Integer.parseInt(value);
          case "threads" -> o.threads = Arrays.stream(value.split(",")).mapToInt(v -> Workloads.positive(key, Integer.parseInt(v.trim()))).toArray();
          case "seed" -> o.seed = Long.parseLong(value);
          case "docs" -> o.docs = value.equals("none") ? null : Path.of(value);
          default -> throw new IllegalArgumentException("unknown option '" + key + "'; known: rows, batch, slowShard,"
              + " slowMs, otherMs, iterations, warmup, lookups, lookupWarmup, threads, seed, docs");
        }
      }
      if (o.slowShard < 0 || Arrays.stream(o.otherMs).anyMatch(v -> v < 0) || o.warmup < 0 || o.lookupWarmup < 0) {
        throw new IllegalArgumentException("slowShard, otherMs, warmup and lookupWarmup must not be negative");
      }
      return o;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "rows=%d batch=%d slowShard=%d slowMs=%d otherMs=%s iterations=%d warmup=%d"
              + " lookups=%d lookupWarmup=%d threads=%s seed=%d", rows, batch, slowShard, slowMs,
          Arrays.stream(otherMs).mapToObj(Long::toString).collect(Collectors.joining(",")), iterations, warmup,
          lookups, lookupWarmup, Arrays.stream(threads).mapToObj(Integer::toString).collect(Collectors.joining(",")),
          seed);
    }
  }
}
