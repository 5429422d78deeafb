package io.shardwise.benchmarks;

import static io.shardwise.benchmarks.Workloads.percentile;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.transaction.SagaDefinition;
import io.shardwise.hibernate.transaction.SagaOutcome;
import io.shardwise.hibernate.transaction.Sagas;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import jakarta.persistence.LockModeType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;
import org.hibernate.Session;
import org.hibernate.SessionFactory;

/**
 * The cost of a transfer between two accounts, in one run on one 2-shard testkit topology:
 *
 * <ul>
 *   <li><b>local</b> — both accounts on the same shard, one ordinary transaction
 *       ({@code shards.forKey(a).inTransaction(...)}): the baseline;</li>
 *   <li><b>2pc</b> — the accounts on different shards, {@code shards.atomically(tx -> ...)}: flush and
 *       {@code PREPARE TRANSACTION} on both, the decision in the control database, then
 *       {@code COMMIT PREPARED} on both;</li>
 *   <li><b>saga</b> — the accounts on different shards, a registered two-step saga (debit, then
 *       credit; each with a compensation) run by {@code shards.sagas().run(...)}.</li>
 * </ul>
 *
 * <p>Each configuration runs closed-loop at each thread count: a warm-up, then a measured interval,
 * with progress every second. Threads never share an account (no lock waits between workers): each
 * owns two local pairs (one per shard) and two cross-shard pairs (one in each direction), uses them
 * in turn and alternates the direction of the money. Transactions lock rows with
 * {@code SELECT ... FOR UPDATE} in ascending id order (a saga step touches one row). Reported: ops/s
 * (with the per-second range), p50 and p99 latency of the successful transfers, and each as a ratio
 * to the local baseline at the same thread count of the same run.
 *
 * <p>At the end the runner checks that the sum of all balances over both shards equals the opening
 * sum, that no prepared transaction is left on any shard and that no saga is unfinished; it prints
 * these and exits with status 1 if any fails (and then leaves the docs alone).
 *
 * <p>Run from the repository root:
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.CrossShardTransactionWorkload
 * </pre>
 *
 * Options, as {@code key=value} arguments: {@code jvmwarmup=3} (seconds per mode, at the highest
 * thread count, before the first measured configuration; not reported), {@code warmup=3} (seconds
 * per configuration),
 * {@code duration=8} (measured seconds per configuration), {@code threads=1,2},
 * {@code modes=local,2pc,saga}, {@code docs=docs/benchmarks.md} (the generated part of the section
 * "Cross-shard transactions" is replaced, or the section appended; {@code none} leaves the file
 * alone).
 */
public final class CrossShardTransactionWorkload {
  static final String SECTION = "## Cross-shard transactions";
  static final String BEGIN = "<!-- CrossShardTransactionWorkload:begin (generated; rerun the workload to replace) -->";
  static final String END = "<!-- CrossShardTransactionWorkload:end -->";

  private static final long INITIAL_BALANCE = 1_000_000;
  private static final String SAGA = "bench-transfer";


  /** The three ways to run a transfer. */
  enum Mode {
    LOCAL("local", "local, 1 shard (baseline)"),
    TWO_PC("2pc", "2PC, 2 shards"),
    SAGA("saga", "saga, 2 shards");

    final String key;
    final String label;

    Mode(String key, String label) {
      this.key = key;
      this.label = label;
    }

    static Mode of(String key) {
      for (Mode m : values()) {
        if (m.key.equals(key)) {
          return m;
        }
      }
      throw new IllegalArgumentException("Unknown mode '" + key + "': use local, 2pc or saga");
    }
  }

  /** Two accounts that move money between each other; {@code low < high}. */
  private record Pair(long low, long high) {}

  /** What one worker thread owns. */
  private record Accounts(Pair[] local, Pair[] cross) {}

  private final ShardedSessions shards;
  private final Sagas sagas;

  private CrossShardTransactionWorkload(ShardedSessions shards, Sagas sagas) {
    this.shards = shards;
    this.sagas = sagas;
  }

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    Workloads.quietLibraries();
    System.out.println("[tx-bench] " + options);
    String loadBefore = loadAverage();
    int status;
    System.out.println("[tx-bench] starting a 2-shard topology (load average " + loadBefore + ") ...");
    try (PostgresTopology pg = PostgresTopology.builder().shards(2).start()) {
      System.out.printf(Locale.ROOT, "[tx-bench] topology up in %d ms%n", pg.startupTime().toMillis());
      Shardwise.Builder builder = Shardwise.configure().credentials("postgres", null)
          .controlDatabase(pg.shard(0).primary().jdbcUrl(), true)
          .schema("create")
          .entities(BenchAccount.class)
          .property(ShardwiseSettings.CONNECTION_TIMEOUT, "5000");
      for (PostgresShard shard : pg.shards()) {
        // a lock wait that should never happen here fails after 5 s instead of hanging the run
        builder.shard(shardId(shard.index()), shard.primary().jdbcUrl() + "?options=-c%20lock_timeout%3D5000");
      }
      try (SessionFactory sessionFactory = builder.buildSessionFactory()) {
        ShardedSessions shards = ShardedSessions.of(sessionFactory);
        Sagas sagas = shards.sagas().register(transferSaga());
        CrossShardTransactionWorkload workload = new CrossShardTransactionWorkload(shards, sagas);

        int maxThreads = Arrays.stream(options.threads).max().orElse(1);
        List<Accounts> accounts = workload.openAccounts(maxThreads);
        Totals before = totals(pg);
        System.out.printf(Locale.ROOT, "[tx-bench] %d accounts, sum of balances %,d%n", before.accounts,
            before.sum);

        if (options.jvmWarmupSeconds > 0) {
          // compiles the code paths of every mode before the first measured cell; not reported
          System.out.printf(Locale.ROOT, "[tx-bench] JVM warm-up: %d s per mode, not measured%n",
              options.jvmWarmupSeconds);
          for (Mode mode : options.modes) {
            workload.runCell(mode, maxThreads, accounts, options.jvmWarmupSeconds, 1);
          }
        }
        List<Cell> cells = new ArrayList<>();
        for (int threads : options.threads) {
          for (Mode mode : options.modes) {
            cells.add(workload.runCell(mode, threads, accounts, options.warmupSeconds, options.durationSeconds));
          }
        }

        Totals after = totals(pg);
        List<String> prepared = preparedTransactions(pg);
        long unfinishedSagas = Workloads.count(pg.shard(0).primary(), "SELECT count(*) FROM shardwise.saga WHERE state IN ('RUNNING', 'COMPENSATING')");
        long completedSagas = Workloads.count(pg.shard(0).primary(), "SELECT count(*) FROM shardwise.saga WHERE state = 'COMPLETED'");
        System.out.println();
        System.out.printf(Locale.ROOT, "[tx-bench] sum of balances: before %,d, after %,d (%d accounts before,"
            + " %d after)%n", before.sum, after.sum, before.accounts, after.accounts);
        System.out.println("[tx-bench] prepared transactions left: " + prepared);
        System.out.printf(Locale.ROOT, "[tx-bench] sagas: %d completed, %d unfinished%n", completedSagas,
            unfinishedSagas);
        boolean invariantHolds = before.sum == after.sum && before.accounts == after.accounts
            && prepared.isEmpty() && unfinishedSagas == 0;
        String loadAfter = loadAverage();
        String report = report(options, cells, Workloads.serverVersion(pg.shard(0).primary()), loadBefore, loadAfter, before, after);
        System.out.println();
        System.out.println(report);
        if (!invariantHolds) {
          System.out.println("[tx-bench] FAILED: the sum of balances changed, or a transaction or saga is left"
              + " unfinished; docs not updated");
          status = 1;
        } else {
          System.out.println("[tx-bench] invariant holds: the sum of balances is unchanged");
          if (options.docs != null) {
            Workloads.writeSection(options.docs, SECTION, BEGIN, END, "", report);
            System.out.println("[tx-bench] results written to " + options.docs);
          }
          status = 0;
        }
      }
    }
    System.exit(status);
  }

  static String shardId(int index) {
    return "shard" + index;
  }

  // --- accounts -----------------------------------------------------------------------------

  /**
   * Per thread: two local pairs (both accounts on shard 0, both on shard 1) and two cross-shard
   * pairs (the lower id on shard 0, and on shard 1), so every mode loads both servers alike.
   */
  private List<Accounts> openAccounts(int threads) {
    long[] next = {1};
    List<Accounts> all = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Pair local0 = pair(next, "shard0", "shard0");
      Pair local1 = pair(next, "shard1", "shard1");
      Pair cross01 = pair(next, "shard0", "shard1");
      Pair cross10 = pair(next, "shard1", "shard0");
      all.add(new Accounts(new Pair[] {local0, local1}, new Pair[] {cross01, cross10}));
      for (Pair p : List.of(local0, local1, cross01, cross10)) {
        for (long id : new long[] {p.low, p.high}) {
          shards.forKey(id).inTransaction(s -> s.persist(new BenchAccount(id, INITIAL_BALANCE)));
        }
      }
      for (Pair p : List.of(cross01, cross10)) {
        if (shards.shardFor(p.low).equals(shards.shardFor(p.high))) {
          throw new IllegalStateException("cross-shard pair on one shard: " + p);
        }
      }
    }
    return all;
  }

  /** The next unused id on {@code first}, then the next unused higher id on {@code second}. */
  private Pair pair(long[] next, String first, String second) {
    long low = keyOn(next, first);
    long high = keyOn(next, second);
    return new Pair(low, high);
  }

  private long keyOn(long[] next, String shardId) {
    for (long k = next[0]; ; k++) {
      if (shards.shardFor(k).equals(shardId)) {
        next[0] = k + 1;
        return k;
      }
    }
  }

  // --- the three transfers ------------------------------------------------------------------

  /** Debit on {@code from}, credit on {@code to}; payload {@code from,to,amount}. */
  static SagaDefinition transferSaga() {
    return SagaDefinition.named(SAGA)
        .step("debit", p -> field(p, 0),
            (s, p) -> locked(s, field(p, 0)).withdraw(field(p, 2)),
            (s, p) -> locked(s, field(p, 0)).adjust(field(p, 2)))
        .step("credit", p -> field(p, 1),
            (s, p) -> locked(s, field(p, 1)).deposit(field(p, 2)),
            (s, p) -> locked(s, field(p, 1)).adjust(-field(p, 2)))
        .build();
  }

  private static long field(String payload, int index) {
    return Long.parseLong(payload.split(",")[index]);
  }

  private static BenchAccount locked(Session s, long id) {
    BenchAccount account = s.find(BenchAccount.class, id, LockModeType.PESSIMISTIC_WRITE);
    if (account == null) {
      throw new IllegalStateException("no account " + id + " on the shard it routes to");
    }
    return account;
  }

  /** Applies one side of a transfer: withdraws from {@code from} or deposits to the other. */
  private static void apply(Session s, long id, long from, long amount) {
    BenchAccount account = locked(s, id);
    if (id == from) {
      account.withdraw(amount);
    } else {
      account.deposit(amount);
    }
  }

  private void transfer(Mode mode, Pair pair, boolean upward, long amount) {
    long from = upward ? pair.low : pair.high;
    long to = upward ? pair.high : pair.low;
    switch (mode) {
      case LOCAL -> shards.forKey(pair.low).inTransaction(s -> {
        apply(s, pair.low, from, amount);
        apply(s, pair.high, from, amount);
      });
      case TWO_PC -> shards.atomically(tx -> {
        tx.on(pair.low, s -> apply(s, pair.low, from, amount));
        tx.on(pair.high, s -> apply(s, pair.high, from, amount));
      });
      case SAGA -> {
        SagaOutcome outcome = sagas.run(SAGA, from + "," + to + "," + amount);
        if (!outcome.completed()) {
          throw new IllegalStateException("saga " + outcome.sagaId() + " ended " + outcome.state() + ": "
              + outcome.failure());
        }
      }
      default -> throw new IllegalStateException(mode.toString());
    }
  }

  // --- one measured configuration -----------------------------------------------------------

  private static final int WARMUP = 0;
  private static final int MEASURE = 1;
  private static final int STOP = 2;

  /** A worker's measurements; written by its thread, read after it ended. */
  private static final class Worker {
    final LongList nanos = new LongList();
    long errors;
    String firstError;
  }

  private volatile int phase;

  private Cell runCell(Mode mode, int threads, List<Accounts> accounts, int warmupSeconds, int durationSeconds)
      throws InterruptedException {
    System.out.printf(Locale.ROOT, "[tx-bench] %s, %d thread(s): warm-up %d s, measure %d s%n", mode.label, threads,
        warmupSeconds, durationSeconds);
    phase = WARMUP;
    LongAdder done = new LongAdder();
    List<Worker> workers = new ArrayList<>();
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Worker w = new Worker();
      Pair[] pairs = mode == Mode.LOCAL ? accounts.get(t).local() : accounts.get(t).cross();
      SplittableRandom random = new SplittableRandom(31L * threads + 7L * t + mode.ordinal());
      Thread thread = new Thread(() -> loop(mode, pairs, random, w, done), "tx-bench-" + mode.key + "-" + t);
      thread.setDaemon(true);
      workers.add(w);
      running.add(thread);
    }
    running.forEach(Thread::start);

    long warmupStart = System.nanoTime();
    long last = done.sum();
    for (int s = 1; s <= warmupSeconds; s++) {
      sleepUntil(warmupStart + s * 1_000_000_000L);
      long now = done.sum();
      System.out.printf(Locale.ROOT, "[tx-bench]   warm-up %d/%d s: %6d ops/s%n", s, warmupSeconds, now - last);
      last = now;
    }

    long start = System.nanoTime();
    long measuredBefore = done.sum();
    phase = MEASURE;
    long[] perSecond = new long[durationSeconds];
    last = measuredBefore;
    for (int s = 0; s < durationSeconds; s++) {
      sleepUntil(start + (s + 1) * 1_000_000_000L);
      long now = done.sum();
      perSecond[s] = now - last;
      System.out.printf(Locale.ROOT, "[tx-bench]   %d/%d s: %6d ops/s%n", s + 1, durationSeconds, perSecond[s]);
      last = now;
    }
    phase = STOP;
    long elapsed = System.nanoTime() - start;
    for (Thread thread : running) {
      thread.join(60_000);
      if (thread.isAlive()) {
        throw new IllegalStateException(thread.getName() + " did not stop within 60 s");
      }
    }
    LongList all = new LongList();
    long errors = 0;
    String firstError = null;
    for (Worker w : workers) {
      all.addAll(w.nanos);
      errors += w.errors;
      if (firstError == null) {
        firstError = w.firstError;
      }
    }
    Cell cell = new Cell(mode, threads, all.size() * 1e9 / elapsed, perSecond, all.sorted(), errors, firstError);
    System.out.println("[tx-bench]   " + cell.summary());
    return cell;
  }

  private void loop(Mode mode, Pair[] pairs, SplittableRandom random, Worker w, LongAdder done) {
    long n = 0;
    int p;
    while ((p = phase) != STOP) {
      Pair pair = pairs[(int) (n % pairs.length)];
      boolean upward = (n / pairs.length) % 2 == 0;
      n++;
      long amount = 1 + random.nextInt(100);
      long t0 = System.nanoTime();
      try {
        transfer(mode, pair, upward, amount);
      } catch (RuntimeException e) {
        w.errors++;
        if (w.firstError == null) {
          w.firstError = e.toString();
          System.out.println("[tx-bench]   ERROR in " + Thread.currentThread().getName() + ": " + e);
        }
        continue;
      }
      long took = System.nanoTime() - t0;
      // a transfer counts in the phase it started and ended in; one that straddles a change counts nowhere
      if (p == phase) {
        if (p == MEASURE) {
          w.nanos.add(took);
        }
        done.increment();
      }
    }
  }

  private static void sleepUntil(long nanoTime) throws InterruptedException {
    long wait = nanoTime - System.nanoTime();
    if (wait > 0) {
      Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
    }
  }

  /** One mode at one thread count. */
  static final class Cell {
    final Mode mode;
    final int threads;
    final double opsPerSecond;
    final long[] perSecond;
    final long[] sortedNanos;
    final long errors;
    final String firstError;

    Cell(Mode mode, int threads, double opsPerSecond, long[] perSecond, long[] sortedNanos, long errors,
        String firstError) {
      this.mode = mode;
      this.threads = threads;
      this.opsPerSecond = opsPerSecond;
      this.perSecond = perSecond;
      this.sortedNanos = sortedNanos;
      this.errors = errors;
      this.firstError = firstError;
    }

    double p50Ms() {
      return percentile(sortedNanos, 0.50) / 1e6;
    }

    double p99Ms() {
      return percentile(sortedNanos, 0.99) / 1e6;
    }

    String summary() {
      return String.format(Locale.ROOT, "%s, %d thread(s): %.0f ops/s (per second %d-%d), p50 %.2f ms, p99 %.2f ms,"
              + " %d transfers, %d errors%s", mode.label, threads, opsPerSecond, Workloads.min(perSecond), Workloads.max(perSecond),
          p50Ms(), p99Ms(), sortedNanos.length, errors, firstError == null ? "" : " (first: " + firstError + ")");
    }
  }

  // --- checks by direct JDBC ----------------------------------------------------------------

  private record Totals(long accounts, long sum) {}

  private static Totals totals(PostgresTopology pg) throws SQLException {
    long accounts = 0;
    long sum = 0;
    for (PostgresShard shard : pg.shards()) {
      try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*), coalesce(sum(balance), 0) FROM bench_account")) {
        rs.next();
        accounts += rs.getLong(1);
        sum += rs.getLong(2);
      }
    }
    return new Totals(accounts, sum);
  }

  private static List<String> preparedTransactions(PostgresTopology pg) throws SQLException {
    List<String> gids = new ArrayList<>();
    for (PostgresShard shard : pg.shards()) {
      try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT gid FROM pg_prepared_xacts")) {
        while (rs.next()) {
          gids.add(shardId(shard.index()) + ":" + rs.getString(1));
        }
      }
    }
    return gids;
  }

  private static String loadAverage() {
    try {
      String[] fields = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
      return fields[0] + " / " + fields[1] + " / " + fields[2];
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }


  // --- report -------------------------------------------------------------------------------

  static String report(Options o, List<Cell> cells, String postgres, String loadBefore, String loadAfter,
      Totals before, Totals after) {
    Map<Integer, Cell> baseline = new HashMap<>();
    for (Cell c : cells) {
      if (c.mode == Mode.LOCAL) {
        baseline.put(c.threads, c);
      }
    }
    StringBuilder b = new StringBuilder();
    b.append(BEGIN).append("\n\n");
    b.append(String.format(Locale.ROOT, "Run of %s. Machine: %d cores as the JVM sees them, shared with other"
            + " builds and test runs (load average %s at the start, %s at the end), %s %s, %s %s; PostgreSQL %s"
            + " from the testkit's embedded bundle (`fsync = off`), both shard primaries and the control database"
            + " (on shard 0's primary) on the same machine as the workload. Settings: %s.%n%n",
        LocalDate.now(), Runtime.getRuntime().availableProcessors(), loadBefore, loadAfter,
        System.getProperty("java.vm.name"), System.getProperty("java.version"), System.getProperty("os.name"),
        System.getProperty("os.arch"), postgres, o));
    b.append("| Threads | Transfer | ops/s (per-second min–max) | p50 ms | p99 ms | × local ops/s | × local p50"
        + " | × local p99 | Errors |\n");
    b.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Cell c : cells) {
      Cell base = baseline.get(c.threads);
      b.append(String.format(Locale.ROOT, "| %d | %s | %,.0f (%,d–%,d) | %.2f | %.2f | %s | %s | %s | %d |%n",
          c.threads, c.mode.label, c.opsPerSecond, Workloads.min(c.perSecond), Workloads.max(c.perSecond), c.p50Ms(), c.p99Ms(),
          base == null ? "–" : ratio(c.opsPerSecond, base.opsPerSecond),
          base == null ? "–" : ratio(c.p50Ms(), base.p50Ms()),
          base == null ? "–" : ratio(c.p99Ms(), base.p99Ms()), c.errors));
    }
    b.append(String.format(Locale.ROOT, "%nSum of balances over both shards: %,d before, %,d after (%d accounts);"
        + " no prepared transaction and no unfinished saga left.%n", before.sum, after.sum, after.accounts));
    b.append('\n').append(END);
    return b.toString();
  }

  private static String ratio(double value, double base) {
    return base > 0 ? String.format(Locale.ROOT, "%.2f", value / base) : "–";
  }

  // --- small helpers ------------------------------------------------------------------------


  /** Command-line settings, {@code key=value}. */
  static final class Options {
    int jvmWarmupSeconds = 3;
    int warmupSeconds = 3;
    int durationSeconds = 8;
    int[] threads = {1, 2};
    List<Mode> modes = List.of(Mode.LOCAL, Mode.TWO_PC, Mode.SAGA);
    Path docs = Path.of("docs", "benchmarks.md");

    static Options parse(String[] args) {
      Options o = new Options();
      for (Map.Entry<String, String> arg : Workloads.keyValues(args, "jvmwarmup, warmup, duration, threads, modes, docs").entrySet()) {
        String key = arg.getKey();
        String value = arg.getValue();
        try {
          switch (key) {
            case "jvmwarmup" -> o.jvmWarmupSeconds = Workloads.nonNegative(key, Integer.parseInt(value));
            case "warmup" -> o.warmupSeconds = Workloads.nonNegative(key, Integer.parseInt(value));
            case "duration" -> o.durationSeconds = Workloads.positive(key, Integer.parseInt(value));
            case "threads" -> o.threads = Arrays.stream(value.split(","))
                .mapToInt(v -> Workloads.positive(key, Integer.parseInt(v.trim()))).toArray();
            case "modes" -> o.modes = Arrays.stream(value.split(",")).map(v -> Mode.of(v.trim())).distinct()
                .sorted().toList();
            case "docs" -> o.docs = value.equals("none") ? null : Path.of(value);
            default -> throw new IllegalArgumentException("Unknown option '" + key + "': use jvmwarmup, warmup,"
                + " duration, threads, modes or docs");
          }
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("Option " + key + " needs a number (or a comma-separated list), got '"
              + value + "'");
        }
      }
      if (o.docs != null && !o.modes.contains(Mode.LOCAL)) {
        throw new IllegalArgumentException("The docs table needs the local baseline: add local to modes, or pass"
            + " docs=none");
      }
      if (o.docs != null && !Files.isRegularFile(o.docs)) {
        throw new IllegalArgumentException("Results go to " + o.docs.toAbsolutePath() + ", which does not exist:"
            + " run from the repository root, or pass docs=<file> or docs=none");
      }
      return o;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "jvmwarmup=%d warmup=%d duration=%d threads=%s modes=%s",
          jvmWarmupSeconds, warmupSeconds, durationSeconds,
          String.join(",", Arrays.stream(threads).mapToObj(Integer::toString).toList()),
          String.join(",", modes.stream().map(m -> m.key).toList()));
    }
  }
}
