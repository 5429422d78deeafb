package io.shardwise.benchmarks;

import static io.shardwise.benchmarks.Workloads.percentile;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.shardwise.hibernate.transaction.SagaDefinition;
import io.shardwise.hibernate.transaction.SagaOutcome;
import io.shardwise.hibernate.transaction.Sagas;
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
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.hibernate.Session;
import org.hibernate.SessionFactory;

/**
 * The cost of a transfer between two accounts, in one JVM on one 2-shard testkit topology:
 *
 * <ul>
 *   <li><b>local</b> — both accounts on the same shard, one ordinary transaction
 *       ({@code shards.forKey(a).inTransaction(...)});</li>
 *   <li><b>jdbc2pc</b> — the accounts on different shards, a hand-written two-phase commit over
 *       plain JDBC and one HikariCP pool per shard, with no coordinator log at all:
 *       {@code SELECT ... FOR NO KEY UPDATE} and {@code UPDATE} on each shard, {@code PREPARE
 *       TRANSACTION} on both, {@code COMMIT PREPARED} on both. This is the baseline for 2PC: what a
 *       careful developer writes by hand, without recovery;</li>
 *   <li><b>hib2pc</b> — the same hand-written protocol, but each side's work in a Hibernate session
 *       of Shardwise's ({@code shards.forShard(id).openSession()}, {@code find} with
 *       {@code PESSIMISTIC_WRITE}, {@code flush}, then {@code PREPARE TRANSACTION} and
 *       {@code COMMIT PREPARED} through {@code doWork}): what Hibernate costs, apart from any
 *       coordinator;</li>
 *   <li><b>2pc</b> — the same transfer with {@code shards.atomically(tx -> ...)};</li>
 *   <li><b>saga</b> — a registered two-step saga (debit, then credit; each with a compensation).</li>
 * </ul>
 *
 * <p>The machine is noisy (shared cores, other builds), so the modes run in <em>rounds</em>: in each
 * round every mode runs a short warm-up and a measured interval, in alternating order (forward in
 * even rounds, backward in odd ones); the report gives medians over rounds and the median of the
 * per-round ratios, which cancels slow drift. After every round the money invariant is checked
 * (the sum of balances over both shards unchanged, no prepared transaction left, no saga
 * unfinished); the run stops with status 1 at the first violation and leaves the docs alone.
 *
 * <p>Threads never share an account (no lock waits between workers): each owns two local pairs
 * (one per shard) and two cross-shard pairs (one in each direction), uses them in turn and
 * alternates the direction of the money. Rows are locked in ascending id order. Reported per cell:
 * ops/s, p50 and p99 latency of the whole call, and client CPU per transfer: the CPU time of the
 * worker threads during the measured interval divided by the transfers they completed in it (what
 * the transfer costs the application's threads), and the process's CPU time over the same interval
 * divided by the same count (adds JIT, GC and Shardwise's background threads); and the bytes the
 * worker threads allocated per transfer, which a loaded machine hardly moves.
 *
 * <p>Run from the repository root:
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.CrossShardTransactionWorkload
 * </pre>
 *
 * Options, as {@code key=value} arguments: {@code jvmwarmup=3} (seconds per mode, at the highest
 * thread count, before the first round; not reported), {@code rounds=7}, {@code warmup=2} (seconds
 * per cell), {@code duration=4} (measured seconds per cell), {@code threads=1,4},
 * {@code modes=local,jdbc2pc,hib2pc,2pc,saga}, {@code docs=docs/benchmarks.md} (the generated part of the
 * section "Cross-shard transactions" is replaced; {@code none} leaves the file alone).
 */
public final class CrossShardTransactionWorkload {
  static final String SECTION = "## Cross-shard transactions";
  static final String BEGIN = "<!-- CrossShardTransactionWorkload:begin (generated; rerun the workload to replace) -->";
  static final String END = "<!-- CrossShardTransactionWorkload:end -->";

  private static final long INITIAL_BALANCE = 1_000_000;
  private static final String SAGA = "bench-transfer";


  /** The ways to run a transfer. */
  enum Mode {
    LOCAL("local", "local, 1 shard"),
    JDBC_2PC("jdbc2pc", "hand-written JDBC 2PC, 2 shards"),
    HIBERNATE_2PC("hib2pc", "hand-written 2PC in Hibernate sessions, 2 shards"),
    TWO_PC("2pc", "Shardwise atomically (2PC), 2 shards"),
    SAGA("saga", "Shardwise saga, 2 shards");

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
      throw new IllegalArgumentException("Unknown mode '" + key + "': use local, jdbc2pc, hib2pc, 2pc or saga");
    }
  }

  /** Two accounts that move money between each other; {@code low < high}. */
  private record Pair(long low, long high, String lowShard, String highShard) {}

  /** What one worker thread owns. */
  private record Accounts(Pair[] local, Pair[] cross) {}

  private final ShardedSessions shards;
  private final Sagas sagas;
  private final Map<String, HikariDataSource> jdbcPools;
  private final AtomicLong jdbcGids = new AtomicLong();

  private CrossShardTransactionWorkload(ShardedSessions shards, Sagas sagas, Map<String, HikariDataSource> jdbcPools) {
    this.shards = shards;
    this.sagas = sagas;
    this.jdbcPools = jdbcPools;
  }

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    Workloads.quietLibraries();
    System.out.println("[tx-bench] " + options);
    String loadBefore = loadAverage();
    int status;
    System.out.println("[tx-bench] starting a 2-shard topology (load average " + loadBefore + ") ...");
    int maxThreads = Arrays.stream(options.threads).max().orElse(1);
    try (PostgresTopology pg = PostgresTopology.builder().shards(2).start()) {
      System.out.printf(Locale.ROOT, "[tx-bench] topology up in %d ms%n", pg.startupTime().toMillis());
      Shardwise.Builder builder = Shardwise.configure().credentials("postgres", null).ddl("create")
          .controlDatabase(pg.shard(0).primary().jdbcUrl(), true)
          .schema("create")
          .entities(BenchAccount.class)
          .property(ShardwiseSettings.CONNECTION_TIMEOUT, "5000");
      Map<String, HikariDataSource> jdbcPools = new LinkedHashMap<>();
      for (PostgresShard shard : pg.shards()) {
        // a lock wait that should never happen here fails after 5 s instead of hanging the run
        String url = shard.primary().jdbcUrl() + "?options=-c%20lock_timeout%3D5000";
        builder.shard(shardId(shard.index()), url);
        jdbcPools.put(shardId(shard.index()), jdbcPool(shardId(shard.index()), url, maxThreads));
      }
      try (SessionFactory sessionFactory = builder.buildSessionFactory()) {
        ShardedSessions shards = ShardedSessions.of(sessionFactory);
        Sagas sagas = shards.sagas().register(transferSaga());
        CrossShardTransactionWorkload workload = new CrossShardTransactionWorkload(shards, sagas, jdbcPools);

        List<Accounts> accounts = workload.openAccounts(maxThreads);
        Totals before = totals(pg);
        System.out.printf(Locale.ROOT, "[tx-bench] %d accounts, sum of balances %,d%n", before.accounts,
            before.sum);

        if (options.jvmWarmupSeconds > 0) {
          // compiles the code paths of every mode before the first measured cell; not reported
          System.out.printf(Locale.ROOT, "[tx-bench] JVM warm-up: %d s per mode, not measured%n",
              options.jvmWarmupSeconds);
          for (Mode mode : options.modes) {
            workload.runCell(mode, maxThreads, 0, accounts, options.jvmWarmupSeconds, 1);
          }
        }
        List<Cell> cells = new ArrayList<>();
        String violation = null;
        rounds:
        for (int threads : options.threads) {
          for (int round = 0; round < options.rounds; round++) {
            List<Mode> order = new ArrayList<>(options.modes);
            if (round % 2 == 1) {
              java.util.Collections.reverse(order);
            }
            for (Mode mode : order) {
              cells.add(workload.runCell(mode, threads, round, accounts, options.warmupSeconds,
                  options.durationSeconds));
            }
            violation = invariantViolation(pg, before);
            System.out.printf(Locale.ROOT, "[tx-bench] after round %d at %d thread(s): %s%n", round + 1, threads,
                violation == null ? "invariant holds" : "INVARIANT VIOLATED: " + violation);
            if (violation != null) {
              break rounds;
            }
          }
        }

        Totals after = totals(pg);
        String loadAfter = loadAverage();
        String report = report(options, cells, Workloads.serverVersion(pg.shard(0).primary()), loadBefore, loadAfter,
            before, after);
        System.out.println();
        System.out.println(report);
        if (violation != null) {
          System.out.println("[tx-bench] FAILED: " + violation + "; docs not updated");
          status = 1;
        } else {
          System.out.println("[tx-bench] invariant held after every round");
          if (options.docs != null) {
            Workloads.writeSection(options.docs, SECTION, BEGIN, END, "", report);
            System.out.println("[tx-bench] results written to " + options.docs);
          }
          status = 0;
        }
      } finally {
        jdbcPools.values().forEach(HikariDataSource::close);
      }
    }
    System.exit(status);
  }

  static String shardId(int index) {
    return "shard" + index;
  }

  private static HikariDataSource jdbcPool(String shardId, String url, int threads) {
    HikariConfig hc = new HikariConfig();
    hc.setPoolName("jdbc2pc-" + shardId);
    hc.setJdbcUrl(url);
    hc.setUsername("postgres");
    hc.setMaximumPoolSize(Math.max(2, threads)); // a transfer holds one connection per shard
    hc.setMinimumIdle(2); // as Shardwise's own shard pools
    return new HikariDataSource(hc);
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
    return new Pair(low, high, first, second);
  }

  private long keyOn(long[] next, String shardId) {
    for (long k = next[0]; ; k++) {
      if (shards.shardFor(k).equals(shardId)) {
        next[0] = k + 1;
        return k;
      }
    }
  }

  // --- the transfers ------------------------------------------------------------------------

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
      case JDBC_2PC -> jdbcTwoPhaseCommit(pair, from, amount);
      case HIBERNATE_2PC -> hibernateTwoPhaseCommit(pair, from, amount);
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

  /**
   * The baseline: lock and update each row on its shard, PREPARE TRANSACTION on both, COMMIT PREPARED
   * on both; on a failure before both prepared, roll back what there is. No decision is recorded
   * anywhere, so a crash between the two COMMIT PREPAREDs would need a person to finish it.
   */
  private void jdbcTwoPhaseCommit(Pair pair, long from, long amount) {
    String gid = "bench-2pc:" + jdbcGids.incrementAndGet();
    try (Connection low = jdbcPools.get(pair.lowShard).getConnection();
        Connection high = jdbcPools.get(pair.highShard).getConnection()) {
      low.setAutoCommit(false);
      high.setAutoCommit(false);
      boolean lowPrepared = false;
      boolean highPrepared = false;
      try {
        move(low, pair.low, from, amount);
        move(high, pair.high, from, amount);
        execute(low, "PREPARE TRANSACTION '" + gid + "'");
        lowPrepared = true;
        execute(high, "PREPARE TRANSACTION '" + gid + "'");
        highPrepared = true;
      } catch (SQLException | RuntimeException e) {
        undo(low, lowPrepared, gid, e);
        undo(high, highPrepared, gid, e);
        throw e;
      }
      low.setAutoCommit(true);
      execute(low, "COMMIT PREPARED '" + gid + "'");
      high.setAutoCommit(true);
      execute(high, "COMMIT PREPARED '" + gid + "'");
    } catch (SQLException e) {
      throw new IllegalStateException("JDBC 2PC " + gid + " failed: " + e.getMessage(), e);
    }
  }

  /** The same protocol as {@link #jdbcTwoPhaseCommit}, each side's work in a Hibernate session. */
  private void hibernateTwoPhaseCommit(Pair pair, long from, long amount) {
    String gid = "bench-2pc:" + jdbcGids.incrementAndGet();
    try (Session low = shards.forShard(pair.lowShard).openSession();
        Session high = shards.forShard(pair.highShard).openSession()) {
      org.hibernate.Transaction lowTx = low.beginTransaction();
      org.hibernate.Transaction highTx = high.beginTransaction();
      boolean lowPrepared = false;
      boolean highPrepared = false;
      try {
        apply(low, pair.low, from, amount);
        apply(high, pair.high, from, amount);
        low.flush();
        high.flush();
        low.doWork(c -> execute(c, "PREPARE TRANSACTION '" + gid + "'"));
        lowPrepared = true;
        lowTx.rollback(); // ends Hibernate's transaction; the driver sends nothing outside a transaction
        high.doWork(c -> execute(c, "PREPARE TRANSACTION '" + gid + "'"));
        highPrepared = true;
        highTx.rollback();
      } catch (RuntimeException e) {
        undo(low, lowTx, lowPrepared, gid, e);
        undo(high, highTx, highPrepared, gid, e);
        throw e;
      }
      low.doWork(c -> execute(c, "COMMIT PREPARED '" + gid + "'"));
      high.doWork(c -> execute(c, "COMMIT PREPARED '" + gid + "'"));
    }
  }

  private static void undo(Session s, org.hibernate.Transaction tx, boolean prepared, String gid, Exception cause) {
    try {
      if (prepared) {
        s.doWork(c -> execute(c, "ROLLBACK PREPARED '" + gid + "'"));
      } else if (tx.isActive()) {
        tx.rollback();
      }
    } catch (RuntimeException e) {
      cause.addSuppressed(e);
    }
  }

  private static void move(Connection c, long id, long from, long amount) throws SQLException {
    long balance;
    try (PreparedStatement select = c.prepareStatement("SELECT balance FROM bench_account WHERE id = ? FOR NO KEY UPDATE")) {
      select.setLong(1, id);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("no account " + id);
        }
        balance = rs.getLong(1);
      }
    }
    if (id == from && balance < amount) {
      throw new IllegalStateException("insufficient funds in account " + id + ": " + balance + " < " + amount);
    }
    try (PreparedStatement update = c.prepareStatement("UPDATE bench_account SET balance = ? WHERE id = ?")) {
      update.setLong(1, id == from ? balance - amount : balance + amount);
      update.setLong(2, id);
      update.executeUpdate();
    }
  }

  private static void undo(Connection c, boolean prepared, String gid, Exception cause) {
    try {
      if (prepared) {
        c.setAutoCommit(true);
        execute(c, "ROLLBACK PREPARED '" + gid + "'");
      } else {
        c.rollback();
      }
    } catch (SQLException e) {
      cause.addSuppressed(e);
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  // --- one measured cell ----------------------------------------------------------------------

  private static final int WARMUP = 0;
  private static final int MEASURE = 1;
  private static final int STOP = 2;
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  /** A worker's measurements; written by its thread, read after it ended. */
  private static final class Worker {
    final LongList nanos = new LongList();
    long errors;
    String firstError;
  }

  private volatile int phase;

  private Cell runCell(Mode mode, int threads, int round, List<Accounts> accounts, int warmupSeconds,
      int durationSeconds) throws InterruptedException {
    System.out.printf(Locale.ROOT, "[tx-bench] %s, %d thread(s), round %d: warm-up %d s, measure %d s%n", mode.label,
        threads, round + 1, warmupSeconds, durationSeconds);
    phase = WARMUP;
    LongAdder done = new LongAdder();
    List<Worker> workers = new ArrayList<>();
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Worker w = new Worker();
      Pair[] pairs = mode == Mode.LOCAL ? accounts.get(t).local() : accounts.get(t).cross();
      SplittableRandom random = new SplittableRandom(31L * threads + 7L * t + 101L * round + mode.ordinal());
      Thread thread = new Thread(() -> loop(mode, pairs, random, w, done), "tx-bench-" + mode.key + "-" + t);
      thread.setDaemon(true);
      workers.add(w);
      running.add(thread);
    }
    running.forEach(Thread::start);

    long warmupStart = System.nanoTime();
    for (int s = 1; s <= warmupSeconds; s++) {
      sleepUntil(warmupStart + s * 1_000_000_000L);
    }

    long workerCpuBefore = cpuTime(running);
    long workerBytesBefore = allocatedBytes(running);
    long processCpuBefore = OS.getProcessCpuTime();
    long start = System.nanoTime();
    phase = MEASURE;
    long[] perSecond = new long[durationSeconds];
    long last = done.sum();
    for (int s = 0; s < durationSeconds; s++) {
      sleepUntil(start + (s + 1) * 1_000_000_000L);
      long now = done.sum();
      perSecond[s] = now - last;
      last = now;
    }
    phase = STOP;
    long elapsed = System.nanoTime() - start;
    long workerCpu = cpuTime(running) - workerCpuBefore;
    long workerBytes = allocatedBytes(running) - workerBytesBefore;
    long processCpu = OS.getProcessCpuTime() - processCpuBefore;
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
    Cell cell = new Cell(mode, threads, round, all.size() * 1e9 / elapsed, perSecond, all.sorted(), workerCpu,
        processCpu, workerBytes, errors, firstError);
    System.out.println("[tx-bench]   " + cell.summary());
    return cell;
  }

  /**
   * The bytes the threads have allocated so far (a thread that ended counts nothing): unlike CPU
   * time, hardly moved by a loaded machine, so it shows a change of the code path in a short run.
   */
  private static long allocatedBytes(List<Thread> threads) {
    return sumOver(threads, t -> THREADS.getThreadAllocatedBytes(t.getId()));
  }

  /** The CPU time the threads have used so far (a thread that ended counts nothing). */
  private static long cpuTime(List<Thread> threads) {
    return sumOver(threads, t -> THREADS.getThreadCpuTime(t.getId()));
  }

  /** The sum of {@code measure} over the threads, leaving out the -1 of a thread that ended. */
  private static long sumOver(List<Thread> threads, java.util.function.ToLongFunction<Thread> measure) {
    long sum = 0;
    for (Thread t : threads) {
      long value = measure.applyAsLong(t);
      if (value > 0) {
        sum += value;
      }
    }
    return sum;
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
          done.increment();
        }
      }
    }
  }

  private static void sleepUntil(long nanoTime) throws InterruptedException {
    long wait = nanoTime - System.nanoTime();
    if (wait > 0) {
      Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
    }
  }

  /** One mode at one thread count in one round. */
  static final class Cell {
    final Mode mode;
    final int threads;
    final int round;
    final double opsPerSecond;
    final long[] perSecond;
    final long[] sortedNanos;
    final long workerCpuNanos;
    final long processCpuNanos;
    final long workerAllocatedBytes;
    final long errors;
    final String firstError;

    Cell(Mode mode, int threads, int round, double opsPerSecond, long[] perSecond, long[] sortedNanos,
        long workerCpuNanos, long processCpuNanos, long workerAllocatedBytes, long errors, String firstError) {
      this.mode = mode;
      this.threads = threads;
      this.round = round;
      this.opsPerSecond = opsPerSecond;
      this.perSecond = perSecond;
      this.sortedNanos = sortedNanos;
      this.workerCpuNanos = workerCpuNanos;
      this.processCpuNanos = processCpuNanos;
      this.workerAllocatedBytes = workerAllocatedBytes;
      this.errors = errors;
      this.firstError = firstError;
    }

    double workerCpuMicrosPerTransfer() {
      return sortedNanos.length == 0 ? Double.NaN : workerCpuNanos / 1e3 / sortedNanos.length;
    }

    double processCpuMicrosPerTransfer() {
      return sortedNanos.length == 0 ? Double.NaN : processCpuNanos / 1e3 / sortedNanos.length;
    }

    double workerKilobytesPerTransfer() {
      return sortedNanos.length == 0 ? Double.NaN : workerAllocatedBytes / 1024.0 / sortedNanos.length;
    }

    double p50Ms() {
      return percentile(sortedNanos, 0.50) / 1e6;
    }

    double p99Ms() {
      return percentile(sortedNanos, 0.99) / 1e6;
    }

    String summary() {
      return String.format(Locale.ROOT, "%s, %d thread(s), round %d: %.0f ops/s (per second %d-%d), p50 %.2f ms,"
              + " p99 %.2f ms, CPU per transfer %.0f us in workers / %.0f us in the process, %.1f KB allocated per transfer in workers, %d transfers,"
              + " %d errors%s",
          mode.label, threads, round + 1, opsPerSecond, Workloads.min(perSecond), Workloads.max(perSecond),
          Workloads.percentile(sortedNanos, 0.50) / 1e6, Workloads.percentile(sortedNanos, 0.99) / 1e6,
          workerCpuMicrosPerTransfer(), processCpuMicrosPerTransfer(), workerKilobytesPerTransfer(), sortedNanos.length,
          errors,
          firstError == null ? "" : " (first: " + firstError + ")");
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

  /** Null if the money invariant holds, else what is wrong. */
  private static String invariantViolation(PostgresTopology pg, Totals before) throws SQLException {
    Totals now = totals(pg);
    List<String> prepared = preparedTransactions(pg);
    long unfinishedSagas = Workloads.count(pg.shard(0).primary(),
        "SELECT count(*) FROM shardwise.saga WHERE state IN ('RUNNING', 'COMPENSATING')");
    List<String> problems = new ArrayList<>();
    if (now.sum != before.sum || now.accounts != before.accounts) {
      problems.add(String.format(Locale.ROOT, "sum of balances %,d over %d accounts, was %,d over %d", now.sum,
          now.accounts, before.sum, before.accounts));
    }
    if (!prepared.isEmpty()) {
      problems.add("prepared transactions left: " + prepared);
    }
    if (unfinishedSagas != 0) {
      problems.add(unfinishedSagas + " unfinished saga(s)");
    }
    return problems.isEmpty() ? null : String.join("; ", problems);
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
    StringBuilder b = new StringBuilder();
    b.append(BEGIN).append("\n\n");
    b.append("The × columns are medians over rounds of the ratio to that baseline's ops/s in the same round.\n\n");
    b.append(String.format(Locale.ROOT, "Run of %s. Machine: %d cores as the JVM sees them, shared with other"
            + " builds and test runs (load average %s at the start, %s at the end), %s %s, %s %s; PostgreSQL %s"
            + " from the testkit's embedded bundle (`fsync = off`), both shard primaries and the control database"
            + " (on shard 0's primary) on the same machine as the workload. Settings: %s.%n%n",
        LocalDate.now(), Runtime.getRuntime().availableProcessors(), loadBefore, loadAfter,
        System.getProperty("java.vm.name"), System.getProperty("java.version"), System.getProperty("os.name"),
        System.getProperty("os.arch"), postgres, o));
    b.append("| Threads | Transfer | ops/s, median of rounds (min–max) | × JDBC 2PC | × Hibernate 2PC | × local"
        + " | p50 ms | p99 ms | CPU µs/transfer, workers | CPU µs/transfer, process | KB allocated/transfer, workers"
        + " | Errors |\n");
    b.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int threads : o.threads) {
      for (Mode mode : o.modes) {
        List<Cell> mine = cells.stream().filter(c -> c.threads == threads && c.mode == mode).toList();
        if (mine.isEmpty()) {
          continue;
        }
        double[] ops = mine.stream().mapToDouble(c -> c.opsPerSecond).toArray();
        LongList latencies = new LongList();
        mine.forEach(c -> latencies.addAll(c.sortedNanos));
        long[] sorted = latencies.sorted();
        b.append(String.format(Locale.ROOT, "| %d | %s | %,.0f (%,.0f–%,.0f) | %s | %s | %s | %.2f | %.2f | %.0f | %.0f | %.1f | %d |%n",
            threads, mode.label, median(ops), Arrays.stream(ops).min().orElse(0), Arrays.stream(ops).max().orElse(0),
            ratioColumn(cells, threads, mode, Mode.JDBC_2PC), ratioColumn(cells, threads, mode, Mode.HIBERNATE_2PC),
            ratioColumn(cells, threads, mode, Mode.LOCAL),
            Workloads.percentile(sorted, 0.50) / 1e6, Workloads.percentile(sorted, 0.99) / 1e6,
            median(mine.stream().mapToDouble(Cell::workerCpuMicrosPerTransfer).toArray()),
            median(mine.stream().mapToDouble(Cell::processCpuMicrosPerTransfer).toArray()),
            median(mine.stream().mapToDouble(Cell::workerKilobytesPerTransfer).toArray()),
            mine.stream().mapToLong(c -> c.errors).sum()));
      }
    }
    if (o.modes.contains(Mode.JDBC_2PC) && o.modes.contains(Mode.TWO_PC)) {
      b.append("\nShardwise `atomically` ÷ hand-written JDBC 2PC, round by round (ops/s; CPU µs per transfer in"
          + " the workers):\n\n");
      for (int threads : o.threads) {
        StringBuilder line = new StringBuilder();
        for (int round = 0; round < o.rounds; round++) {
          Cell sw = find(cells, threads, round, Mode.TWO_PC);
          Cell jdbc = find(cells, threads, round, Mode.JDBC_2PC);
          if (sw == null || jdbc == null) {
            continue;
          }
          line.append(String.format(Locale.ROOT, "%s%.2f (%,.0f vs %,.0f; %.0f vs %.0f µs)", line.length() == 0 ? "" : "; ",
              sw.opsPerSecond / jdbc.opsPerSecond, sw.opsPerSecond, jdbc.opsPerSecond, sw.workerCpuMicrosPerTransfer(),
              jdbc.workerCpuMicrosPerTransfer()));
        }
        b.append("- ").append(threads).append(" thread(s): ").append(line).append('\n');
      }
    }
    b.append(String.format(Locale.ROOT, "%nSum of balances over both shards: %,d before, %,d after (%d accounts),"
        + " checked after every round with no prepared transaction and no unfinished saga left.%n", before.sum,
        after.sum, after.accounts));
    b.append('\n').append(END);
    return b.toString();
  }

  private static Cell find(List<Cell> cells, int threads, int round, Mode mode) {
    for (Cell c : cells) {
      if (c.threads == threads && c.round == round && c.mode == mode) {
        return c;
      }
    }
    return null;
  }

  /** The median over rounds of this mode's ops/s divided by the baseline's in the same round. */
  private static String ratioColumn(List<Cell> cells, int threads, Mode mode, Mode baseline) {
    List<Double> ratios = new ArrayList<>();
    for (Cell c : cells) {
      if (c.threads == threads && c.mode == mode) {
        Cell base = find(cells, threads, c.round, baseline);
        if (base != null && base.opsPerSecond > 0) {
          ratios.add(c.opsPerSecond / base.opsPerSecond);
        }
      }
    }
    return ratios.isEmpty() ? "–"
        : String.format(Locale.ROOT, "%.2f", median(ratios.stream().mapToDouble(Double::doubleValue).toArray()));
  }

  static double median(double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }

  // --- small helpers ------------------------------------------------------------------------


  /** Command-line settings, {@code key=value}. */
  static final class Options {
    int jvmWarmupSeconds = 3;
    int rounds = 7;
    int warmupSeconds = 2;
    int durationSeconds = 4;
    int[] threads = {1, 4};
    List<Mode> modes = List.of(Mode.LOCAL, Mode.JDBC_2PC, Mode.HIBERNATE_2PC, Mode.TWO_PC, Mode.SAGA);
    Path docs = Path.of("docs", "benchmarks.md");

    static Options parse(String[] args) {
      Options o = new Options();
      for (Map.Entry<String, String> arg : Workloads.keyValues(args,
          "jvmwarmup, rounds, warmup, duration, threads, modes, docs").entrySet()) {
        String key = arg.getKey();
        String value = arg.getValue();
        try {
          switch (key) {
            case "jvmwarmup" -> o.jvmWarmupSeconds = Workloads.nonNegative(key, Integer.parseInt(value));
            case "rounds" -> o.rounds = Workloads.positive(key, Integer.parseInt(value));
            case "warmup" -> o.warmupSeconds = Workloads.nonNegative(key, Integer.parseInt(value));
            case "duration" -> o.durationSeconds = Workloads.positive(key, Integer.parseInt(value));
            case "threads" -> o.threads = Arrays.stream(value.split(","))
                .mapToInt(v -> Workloads.positive(key, Integer.parseInt(v.trim()))).toArray();
            case "modes" -> o.modes = Arrays.stream(value.split(",")).map(v -> Mode.of(v.trim())).distinct()
                .sorted().toList();
            case "docs" -> o.docs = value.equals("none") ? null : Path.of(value);
            default -> throw new IllegalArgumentException("Unknown option '" + key + "': use jvmwarmup, rounds,"
                + " warmup, duration, threads, modes or docs");
          }
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("Option " + key + " needs a number (or a comma-separated list), got '"
              + value + "'");
        }
      }
      if (o.docs != null && !(o.modes.contains(Mode.JDBC_2PC) && o.modes.contains(Mode.LOCAL))) {
        throw new IllegalArgumentException("The docs table needs the baselines: add local and jdbc2pc to modes, or"
            + " pass docs=none");
      }
      if (o.docs != null && !Files.isRegularFile(o.docs)) {
        throw new IllegalArgumentException("Results go to " + o.docs.toAbsolutePath() + ", which does not exist:"
            + " run from the repository root, or pass docs=<file> or docs=none");
      }
      return o;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "jvmwarmup=%d rounds=%d warmup=%d duration=%d threads=%s modes=%s",
          jvmWarmupSeconds, rounds, warmupSeconds, durationSeconds,
          String.join(",", Arrays.stream(threads).mapToObj(Integer::toString).toList()),
          String.join(",", modes.stream().map(m -> m.key).toList()));
    }
  }
}
