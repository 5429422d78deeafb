package io.shardwise.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.hibernate.SessionFactory;

/**
 * What a scatter-gather query costs as the shard count grows: 1, 8, 32, 64, 128 primaries from the
 * testkit (one PostgreSQL server each, created from the testkit's template data directory), the
 * same {@code rows} spread over them by the shard map, one caller thread.
 *
 * <p>For each shard count, every variant runs in every round, the order rotated and reversed from
 * round to round so that drift on a shared machine hits all alike. A round runs {@code ops}
 * operations of a variant; the report gives p50/p99 latency over every operation of every round,
 * and the medians over rounds of the client CPU (the CPU time of every JVM thread: the caller, the
 * fan-out threads, the JVM's own) and of the bytes allocated, both per operation. The slope per
 * shard is the least-squares line through the shard counts.
 *
 * <ul>
 *   <li>{@code bare count}: the baseline of one shard's part — {@code select count(*)} as a prepared
 *       autocommit statement on a read-only HikariCP connection, one shard after the other; its CPU
 *       divided by the shard count is what a part costs with nothing around it;</li>
 *   <li>{@code bare count with Shardwise's deadlines}: the same on connections given the deadlines
 *       read from a connection of Shardwise's own pool (its socket timeout, so each read is a timed
 *       wait, and the server-side timeouts) — the bare query on the pooled connection a part gets;</li>
 *   <li>{@code count}, {@code group by}, {@code top-20}, {@code keyset page}: through
 *       {@code shards.scatter()};</li>
 *   <li>{@code point lookup}: {@code forKey(id).fromSession(find)} on keys of one shard only: does a
 *       lookup cost more as shards are added?</li>
 * </ul>
 *
 * <p>With {@code parts=true} it measures instead what a scalar part costs against its bare query
 * (issue 31 item 1): a parameterized {@code count ... where a.status = :status} and a top-20
 * projection ({@code select a.id, a.balanceCents ... order by a.id desc}, limit 20), each as a bare
 * prepared statement shard by shard, through {@code shards.scatter()} (a plain statement per shard),
 * and through a second session factory on the same shards whose do-nothing statement inspector
 * makes every part a Hibernate query (the path such parts took before); all six alternate in the
 * same rounds. Its report goes to its own section of the docs, and it draws no chart.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.ScatterSweepWorkload shards=1,8,32,64,128
 * </pre>
 *
 * Options as {@code key=value}: {@code shards=1,8,32,64,128}, {@code rows=20000}, {@code rounds=5},
 * {@code ops=100}, {@code warmup=100}, {@code docs=docs/benchmarks.md} ({@code none} to leave it
 * alone), {@code chart=docs/scatter-sweep.svg} ({@code none} for no chart), {@code parts=false},
 * {@code variants=count,bare_count} (only these variants, e.g. to profile one query; needs
 * {@code docs=none chart=none}).
 */
public final class ScatterSweepWorkload {
  static final String SECTION = "## Scatter-gather against the shard count";
  static final String BEGIN = "<!-- ScatterSweepWorkload:begin (generated; rerun the workload to replace) -->";
  static final String END = "<!-- ScatterSweepWorkload:end -->";
  private static final String TAG = "[scatter-sweep] ";
  static final int TOP = 20;
  static final String PARTS_SECTION = "## Scatter parts without a Hibernate query: client CPU per shard";
  static final String PARTS_BEGIN = "<!-- ScatterSweepWorkload parts:begin (generated; rerun the workload to replace) -->";
  static final String PARTS_END = "<!-- ScatterSweepWorkload parts:end -->";
  static final String STATUS_COUNT_HQL = "select count(a) from ScatterAccount a where a.status = :status";
  static final String TOP_PROJECTION_HQL = "select a.id, a.balanceCents from ScatterAccount a order by a.id desc";

  enum Variant {
    BARE_COUNT("bare `count(*)`, shard by shard (baseline)"),
    BARE_COUNT_TIMED("bare `count(*)` with Shardwise's default deadlines, shard by shard (baseline)"),
    COUNT("`count`"),
    GROUP("`group by status`"),
    TOP_N("top-20 entities"),
    KEYSET("keyset page of 20"),
    POINT("point lookup, one shard's keys"),
    BARE_STATUS_COUNT("bare `count(*) ... where status = ?`, shard by shard (baseline)", true),
    STATUS_COUNT("`count ... where a.status = :s`: plain statement per shard", true),
    STATUS_COUNT_HIBERNATE("`count ... where a.status = :s`: Hibernate query per shard", true),
    BARE_TOP_PROJECTION("bare `select id, balance_cents ... order by id desc limit 20`, shard by shard (baseline)",
        true),
    TOP_PROJECTION("top-20 projection `a.id, a.balanceCents`: plain statement per shard", true),
    TOP_PROJECTION_HIBERNATE("top-20 projection `a.id, a.balanceCents`: Hibernate query per shard", true);

    final String label;
    /** Measured with {@code parts=true} (the scalar parts against their bare queries), not in the sweep. */
    final boolean parts;

    Variant(String label) {
      this(label, false);
    }

    Variant(String label, boolean parts) {
      this.label = label;
      this.parts = parts;
    }

    static Variant[] of(Options options) {
      return Arrays.stream(values()).filter(v -> v.parts == options.parts)
          .filter(v -> options.variants == null || options.variants.contains(v)).toArray(Variant[]::new);
    }
  }

  /** One round of one variant: CPU (all threads, and the caller's alone) and bytes per operation. */
  record Round(double cpuMicros, double bytes, double callerMicros) {}

  /** A variant at one shard count: latency percentiles and median CPU and bytes per operation. */
  record Result(double p50Ms, double p99Ms, double cpuMicros, double bytes, double callerMicros) {}

  /** One shard count: its results, and the JVM's threads after the workload. */
  record Sweep(int shards, Map<Variant, Result> results, int threads, int peakThreads) {}

  private final ShardedSessions shards;
  /** The same shards through a factory with a statement inspector, under which every part is a Hibernate query. */
  private final ShardedSessions throughHibernate;
  private final List<HikariDataSource> bare;
  /** The same, each pool's connections set up with Shardwise's default deadlines (socket timeout, server timeouts). */
  private final List<HikariDataSource> bareTimed;
  private final long rows;
  private final long[] oneShardKeys;
  private final SplittableRandom random = new SplittableRandom(7);

  private ScatterSweepWorkload(ShardedSessions shards, ShardedSessions throughHibernate, List<HikariDataSource> bare,
      List<HikariDataSource> bareTimed, long rows) {
    this.shards = shards;
    this.throughHibernate = throughHibernate;
    this.bare = bare;
    this.bareTimed = bareTimed;
    this.rows = rows;
    String first = shards.shardFor(1L);
    this.oneShardKeys = java.util.stream.LongStream.rangeClosed(1, rows).filter(id -> shards.shardFor(id).equals(first))
        .toArray();
  }

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    Workloads.quietLibraries();
    System.out.println(TAG + options);
    double loadBefore = Workloads.loadAverage();
    List<Sweep> sweeps = new ArrayList<>();
    String postgres = "?";
    for (int count : options.shards) {
      System.out.println(TAG + "starting " + count + " shards ...");
      try (PostgresTopology pg = PostgresTopology.builder().shards(count).start()) {
        postgres = Workloads.serverVersion(pg.shard(0).primary());
        sweeps.add(runOn(pg, options));
        sweeps.sort(java.util.Comparator.comparingInt(Sweep::shards));
      }
      System.out.println(TAG + table(sweeps));
    }
    double loadAfter = Workloads.loadAverage();
    String report = report(options, sweeps, postgres, loadBefore, loadAfter);
    System.out.println();
    System.out.println(report);
    if (options.chart != null && !options.parts) {
      Files.writeString(options.chart, svg(sweeps), StandardCharsets.UTF_8);
      System.out.println(TAG + "chart written to " + options.chart);
    }
    if (options.docs != null && options.parts) {
      Workloads.writeSection(options.docs, PARTS_SECTION, PARTS_BEGIN, PARTS_END, "", report);
      System.out.println(TAG + "results written to " + options.docs);
    } else if (options.docs != null) {
      Workloads.writeSection(options.docs, SECTION, BEGIN, END, "", report);
      System.out.println(TAG + "results written to " + options.docs);
    }
  }

  /**
   * The deadlines on a connection of Shardwise's own pool, read from it: pgjdbc's {@code socketTimeout}
   * (whole seconds) and the server-side timeouts, as data source properties for a bare pool.
   */
  private static Map<String, String> deadlinesOfShardwisePool(ShardedSessions shards) {
    return shards.forKey(1L).fromSession(session -> session.doReturningWork(c -> {
      try (PreparedStatement ps = c.prepareStatement("select current_setting('statement_timeout'),"
          + " current_setting('lock_timeout'), current_setting('idle_in_transaction_session_timeout')");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        return Map.of("socketTimeout", Long.toString((c.getNetworkTimeout() + 999) / 1000),
            "options", "-c statement_timeout=" + rs.getString(1) + " -c lock_timeout=" + rs.getString(2)
                + " -c idle_in_transaction_session_timeout=" + rs.getString(3));
      }
    }));
  }

  /**
   * A read-only pool of one connection for the bare baseline, its connections given {@code deadlines}
   * (none, or those of Shardwise's pool: then every read is a timed wait).
   */
  private static HikariDataSource barePool(String name, String url, Map<String, String> deadlines,
      java.util.concurrent.ScheduledExecutorService housekeeper) {
    HikariConfig hc = new HikariConfig();
    hc.setPoolName(name);
    hc.setJdbcUrl(url);
    hc.setUsername("postgres");
    hc.setReadOnly(true);
    hc.setMaximumPoolSize(1);
    hc.setScheduledExecutor(housekeeper);
    deadlines.forEach(hc::addDataSourceProperty);
    return new HikariDataSource(hc);
  }

  private static Sweep runOn(PostgresTopology pg, Options options) throws Exception {
    Shardwise.Builder builder = Shardwise.configure().credentials("postgres", null).ddl("create").schema("create")
        .entities(ScatterAccount.class);
    List<HikariDataSource> bare = new ArrayList<>();
    List<HikariDataSource> bareTimed = new ArrayList<>();
    // the baseline's pools share one housekeeping thread, so that the thread count measures Shardwise
    java.util.concurrent.ScheduledThreadPoolExecutor bareHousekeeper = new java.util.concurrent.ScheduledThreadPoolExecutor(
        1, task -> {
          Thread t = new Thread(task, "bare-housekeeper");
          t.setDaemon(true);
          return t;
        });
    bareHousekeeper.setRemoveOnCancelPolicy(true);
    for (PostgresShard shard : pg.shards()) {
      builder.shard("shard" + shard.index(), shard.primary().jdbcUrl());
    }
    Shardwise.Builder inspected = Shardwise.configure().credentials("postgres", null).entities(ScatterAccount.class)
        .property("hibernate.session_factory.statement_inspector", PassThrough.class.getName());
    for (PostgresShard shard : pg.shards()) {
      inspected.shard("shard" + shard.index(), shard.primary().jdbcUrl());
    }
    try (SessionFactory sessionFactory = builder.buildSessionFactory();
        SessionFactory inspectedFactory = options.parts ? inspected.buildSessionFactory() : null) {
      ShardedSessions shards = ShardedSessions.of(sessionFactory);
      ScatterCostWorkload.load(shards, options.rows);
      Map<String, String> deadlines = deadlinesOfShardwisePool(shards);
      System.out.println(TAG + "Shardwise's pool sets " + deadlines);
      for (PostgresShard shard : pg.shards()) {
        bare.add(barePool("bare-" + shard.index(), shard.primary().jdbcUrl(), Map.of(), bareHousekeeper));
        bareTimed.add(barePool("bare-timed-" + shard.index(), shard.primary().jdbcUrl(), deadlines, bareHousekeeper));
      }
      return new ScatterSweepWorkload(shards, inspectedFactory == null ? null : ShardedSessions.of(inspectedFactory),
          bare, bareTimed, options.rows).measure(options, pg.shards().size());
    } finally {
      bare.forEach(HikariDataSource::close);
      bareTimed.forEach(HikariDataSource::close);
      bareHousekeeper.shutdownNow();
    }
  }

  /**
   * A statement inspector that changes nothing: a factory that has one runs every scatter part as a
   * Hibernate query (the plain-statement path steps aside for inspectors), the "before" of {@code parts=true}.
   */
  public static final class PassThrough implements org.hibernate.resource.jdbc.spi.StatementInspector {
    @Override
    public String inspect(String sql) {
      return sql;
    }
  }

  // --- the variants -------------------------------------------------------------------------

  private void run(Variant variant) throws SQLException {
    switch (variant) {
      case BARE_COUNT, BARE_COUNT_TIMED -> {
        long total = 0;
        for (HikariDataSource pool : variant == Variant.BARE_COUNT ? bare : bareTimed) {
          try (Connection c = pool.getConnection();
              PreparedStatement ps = c.prepareStatement("select count(*) from scatter_account");
              ResultSet rs = ps.executeQuery()) {
            rs.next();
            total += rs.getLong(1);
          }
        }
        expect(total == rows, variant, total);
      }
      case COUNT -> {
        long total = shards.scatter().createQuery("select count(a) from ScatterAccount a", Long.class)
            .getSingleResult();
        expect(total == rows, variant, total);
      }
      case GROUP -> {
        List<Object[]> groups = shards.scatter().createQuery("select a.status, count(a), sum(a.balanceCents)"
            + " from ScatterAccount a group by a.status order by a.status", Object[].class).getResultList();
        expect(groups.size() == ScatterCostWorkload.STATUSES.length, variant, groups.size());
      }
      case TOP_N -> {
        List<ScatterAccount> top = shards.scatter().createQuery("from ScatterAccount a order by a.id desc",
            ScatterAccount.class).setMaxResults(TOP).getResultList();
        expect(top.size() == TOP && top.get(0).getId() == rows, variant, top.size());
      }
      case KEYSET -> {
        long after = rows / 2;
        List<ScatterAccount> page = shards.scatter().createQuery("from ScatterAccount a order by a.id desc",
            ScatterAccount.class).after(after).setMaxResults(TOP).getResultList();
        expect(page.size() == TOP && page.get(0).getId() == after - 1, variant, page.size());
      }
      case BARE_STATUS_COUNT -> {
        long total = 0;
        for (HikariDataSource pool : bare) {
          try (Connection c = pool.getConnection();
              PreparedStatement ps = c.prepareStatement("select count(*) from scatter_account where status = ?")) {
            ps.setString(1, "FROZEN");
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              total += rs.getLong(1);
            }
          }
        }
        expect(total == frozen(), variant, total);
      }
      case STATUS_COUNT, STATUS_COUNT_HIBERNATE -> {
        long total = (variant == Variant.STATUS_COUNT ? shards : throughHibernate).scatter()
            .createQuery(STATUS_COUNT_HQL, Long.class).setParameter("status", "FROZEN").getSingleResult();
        expect(total == frozen(), variant, total);
      }
      case BARE_TOP_PROJECTION -> {
        List<long[]> top = new ArrayList<>();
        for (HikariDataSource pool : bare) {
          try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(
              "select id, balance_cents from scatter_account order by id desc limit " + TOP);
              ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              top.add(new long[] {rs.getLong(1), rs.getLong(2)});
            }
          }
        }
        top.sort((a, b) -> Long.compare(b[0], a[0]));
        expect(top.get(0)[0] == rows, variant, top.get(0)[0]);
      }
      case TOP_PROJECTION, TOP_PROJECTION_HIBERNATE -> {
        List<Object[]> top = (variant == Variant.TOP_PROJECTION ? shards : throughHibernate).scatter()
            .createQuery(TOP_PROJECTION_HQL, Object[].class).setMaxResults(TOP).getResultList();
        expect(top.size() == TOP && ((Long) top.get(0)[0]) == rows, variant, top.size());
      }
      case POINT -> {
        long id = oneShardKeys[random.nextInt(oneShardKeys.length)];
        ScatterAccount found = shards.forKey(id).fromSession(s -> s.find(ScatterAccount.class, id));
        expect(found != null && found.getId() == id, variant, id);
      }
    }
  }

  /** Rows whose status is FROZEN, as {@link ScatterCostWorkload#load} writes them. */
  private long frozen() {
    return ScatterCostWorkload.expectedGroups(rows).get("FROZEN").get(0);
  }

  private static void expect(boolean right, Variant variant, Object got) {
    if (!right) {
      throw new IllegalStateException(variant + " gave a wrong answer: " + got);
    }
  }

  // --- measurement --------------------------------------------------------------------------

  private Sweep measure(Options options, int shardCount) throws Exception {
    Variant[] variants = Variant.of(options);
    for (Variant v : variants) {
      for (int i = 0; i < options.warmup; i++) {
        run(v);
      }
    }
    Map<Variant, List<Round>> rounds = new EnumMap<>(Variant.class);
    Map<Variant, long[]> latencies = new EnumMap<>(Variant.class);
    for (Variant v : variants) {
      latencies.put(v, new long[options.rounds * options.ops]);
    }
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    threads.resetPeakThreadCount();
    for (int r = 0; r < options.rounds; r++) {
      List<Variant> order = new ArrayList<>(Arrays.asList(variants));
      Collections.rotate(order, r);
      if (r % 2 == 1) {
        Collections.reverse(order);
      }
      for (Variant v : order) {
        Map<Long, long[]> before = threadCosts();
        long callerBefore = threads.getCurrentThreadCpuTime();
        long[] lat = latencies.get(v);
        for (int i = 0; i < options.ops; i++) {
          long started = System.nanoTime();
          run(v);
          lat[r * options.ops + i] = System.nanoTime() - started;
        }
        long callerUsed = threads.getCurrentThreadCpuTime() - callerBefore;
        long[] used = costsSince(before);
        rounds.computeIfAbsent(v, k -> new ArrayList<>()).add(new Round(used[0] / 1e3 / options.ops,
            (double) used[1] / options.ops, callerUsed / 1e3 / options.ops));
      }
    }
    Map<Variant, Result> results = new EnumMap<>(Variant.class);
    for (Variant v : variants) {
      long[] sorted = latencies.get(v).clone();
      Arrays.sort(sorted);
      results.put(v, new Result(Workloads.ms(Workloads.percentile(sorted, 0.50)),
          Workloads.ms(Workloads.percentile(sorted, 0.99)), Workloads.median(rounds.get(v), Round::cpuMicros),
          Workloads.median(rounds.get(v), Round::bytes), Workloads.median(rounds.get(v), Round::callerMicros)));
    }
    Sweep sweep = new Sweep(shardCount, results, threads.getThreadCount(), threads.getPeakThreadCount());
    System.out.println(TAG + shardCount + " shards: " + results);
    return sweep;
  }

  /** Per live thread: {CPU ns, bytes allocated}. */
  private static Map<Long, long[]> threadCosts() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long[] ids = threads.getAllThreadIds();
    long[] cpu = threads.getThreadCpuTime(ids);
    long[] bytes = threads.getThreadAllocatedBytes(ids);
    Map<Long, long[]> costs = new HashMap<>();
    for (int i = 0; i < ids.length; i++) {
      if (cpu[i] > 0) {
        costs.put(ids[i], new long[] {cpu[i], Math.max(0, bytes[i])});
      }
    }
    return costs;
  }

  /** {CPU ns, bytes} used since {@code before} by the threads alive now (a thread new since then counts from 0). */
  private static long[] costsSince(Map<Long, long[]> before) {
    long[] used = new long[2];
    for (Map.Entry<Long, long[]> now : threadCosts().entrySet()) {
      long[] was = before.getOrDefault(now.getKey(), new long[2]);
      used[0] += now.getValue()[0] - was[0];
      used[1] += now.getValue()[1] - was[1];
    }
    return used;
  }

  // --- report -------------------------------------------------------------------------------

  /** The least-squares slope of {@code y} against the shard counts. */
  static double slope(int[] x, double[] y) {
    double mx = Arrays.stream(x).average().orElse(0);
    double my = Arrays.stream(y).average().orElse(0);
    double num = 0;
    double den = 0;
    for (int i = 0; i < x.length; i++) {
      num += (x[i] - mx) * (y[i] - my);
      den += (x[i] - mx) * (x[i] - mx);
    }
    return den == 0 ? Double.NaN : num / den;
  }

  static String table(List<Sweep> sweeps) {
    StringBuilder b = new StringBuilder("\n| query | shards | p50 ms | p99 ms | client CPU ms/query | CPU µs per shard"
        + " | caller thread's CPU µs/query | KiB/query |\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Variant v : sweeps.get(0).results().keySet()) {
      for (Sweep s : sweeps) {
        Result r = s.results().get(v);
        b.append(String.format(Locale.ROOT, "| %s | %d | %.2f | %.2f | %.3f | %s | %.1f | %.1f |%n", v.label,
            s.shards(), r.p50Ms(), r.p99Ms(), r.cpuMicros() / 1e3, v == Variant.POINT ? "—"
                : String.format(Locale.ROOT, "%.1f", r.cpuMicros() / s.shards()), r.callerMicros(), r.bytes() / 1024));
      }
    }
    return b.toString();
  }

  static String report(Options o, List<Sweep> sweeps, String postgres, double loadBefore, double loadAfter) {
    StringBuilder b = new StringBuilder(BEGIN).append("\n\n");
    b.append(String.format(Locale.ROOT, "One run, %s. Machine: %d cores as the JVM sees them, shared with other"
            + " builds (load average %.1f at the start, %.1f at the end); %s %s; PostgreSQL %s from the testkit, every"
            + " shard and the workload on the same machine; one caller thread; %,d rows over the shards. Scatter"
            + " parts on %s. Settings: %s. Latency over all %d × %d operations of a variant; CPU (all JVM threads)"
            + " and allocation: medians over the rounds, per operation.%n",
        java.time.LocalDate.now(), Runtime.getRuntime().availableProcessors(), loadBefore, loadAfter,
        System.getProperty("java.vm.name"), System.getProperty("java.version"), postgres, o.rows,
        Runtime.version().feature() >= 21 ? "virtual threads" : "the platform pool", o, o.rounds, o.ops));
    b.append(table(sweeps));
    int[] x = sweeps.stream().mapToInt(Sweep::shards).toArray();
    if (o.parts) {
      b.append(partsTable(sweeps)).append('\n').append(PARTS_END).append('\n');
      return b.toString().replace(BEGIN, PARTS_BEGIN); // one shard count is enough: no slopes
    }
    b.append("\n| query | slope: CPU µs per added shard | slope: p50 µs per added shard | slope: bytes per added"
        + " shard |\n|---|---:|---:|---:|\n");
    for (Variant v : sweeps.get(0).results().keySet()) {
      double[] cpu = sweeps.stream().mapToDouble(s -> s.results().get(v).cpuMicros()).toArray();
      double[] p50 = sweeps.stream().mapToDouble(s -> s.results().get(v).p50Ms() * 1e3).toArray();
      double[] bytes = sweeps.stream().mapToDouble(s -> s.results().get(v).bytes()).toArray();
      b.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.0f |%n", v.label, slope(x, cpu), slope(x, p50),
          slope(x, bytes)));
    }
    b.append("\n| shards | a scatter `count`'s part: client CPU µs per shard | bare `count(*)` per shard µs | ratio"
        + " | bare with Shardwise's deadlines µs | ratio | JVM threads after the workload (peak) |\n"
        + "|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Sweep s : sweeps) {
      if (!s.results().containsKey(Variant.COUNT) || !s.results().containsKey(Variant.BARE_COUNT)) {
        continue;
      }
      double part = s.results().get(Variant.COUNT).cpuMicros() / s.shards();
      double base = s.results().get(Variant.BARE_COUNT).cpuMicros() / s.shards();
      Result timed = s.results().get(Variant.BARE_COUNT_TIMED);
      String timedColumns = timed == null ? "— | —" : String.format(Locale.ROOT, "%.1f | %.2f×",
          timed.cpuMicros() / s.shards(), part / (timed.cpuMicros() / s.shards()));
      b.append(String.format(Locale.ROOT, "| %d | %.1f | %.1f | %.2f× | %s | %d (%d) |%n", s.shards(), part, base,
          part / base, timedColumns, s.threads(), s.peakThreads()));
    }
    if (o.chart != null) {
      b.append("\n![Client CPU per query against the shard count](").append(o.chart.getFileName()).append(")\n");
    }
    b.append('\n').append(END).append('\n');
    return b.toString();
  }

  /** Each scalar part's client CPU per shard against its bare query's, plain statement and Hibernate query. */
  static String partsTable(List<Sweep> sweeps) {
    StringBuilder b = new StringBuilder("\n| shards | query | bare query µs per shard | plain statement µs per shard"
        + " (ratio) | Hibernate query µs per shard (ratio) |\n|---:|---|---:|---:|---:|\n");
    Variant[][] triples = {{Variant.BARE_STATUS_COUNT, Variant.STATUS_COUNT, Variant.STATUS_COUNT_HIBERNATE},
        {Variant.BARE_TOP_PROJECTION, Variant.TOP_PROJECTION, Variant.TOP_PROJECTION_HIBERNATE}};
    for (Sweep s : sweeps) {
      for (Variant[] t : triples) {
        double base = s.results().get(t[0]).cpuMicros() / s.shards();
        double plain = s.results().get(t[1]).cpuMicros() / s.shards();
        double hibernate = s.results().get(t[2]).cpuMicros() / s.shards();
        b.append(String.format(Locale.ROOT, "| %d | %s | %.1f | %.1f (%.2f×) | %.1f (%.2f×) |%n", s.shards(),
            t[0] == Variant.BARE_STATUS_COUNT ? "parameterized `count`" : "top-20 projection", base, plain,
            plain / base, hibernate, hibernate / base));
      }
    }
    return b.toString();
  }

  /** A line chart of client CPU per query (ms) against the shard count, one line per variant. */
  static String svg(List<Sweep> sweeps) {
    int width = 640;
    int height = 360;
    int left = 60;
    int bottom = 40;
    int top = 20;
    int right = 200;
    double maxX = sweeps.stream().mapToInt(Sweep::shards).max().orElse(1);
    double maxY = sweeps.stream().flatMap(s -> s.results().values().stream()).mapToDouble(r -> r.cpuMicros() / 1e3)
        .max().orElse(1);
    double plotW = width - left - right;
    double plotH = height - top - bottom;
    String[] colours = {"#888888", "#bbbbbb", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"};
    StringBuilder b = new StringBuilder();
    b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
        + " font-family=\"sans-serif\" font-size=\"11\">%n", width, height));
    b.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", width, height));
    b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%.0f\" y2=\"%d\" stroke=\"black\"/>%n", left,
        height - bottom, left + plotW, height - bottom));
    b.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>%n", left,
        top, left, height - bottom));
    for (Sweep s : sweeps) {
      double px = left + s.shards() / maxX * plotW;
      b.append(String.format(Locale.ROOT, "<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\">%d</text>%n", px,
          height - bottom + 15, s.shards()));
    }
    for (int i = 0; i <= 4; i++) {
      double v = maxY * i / 4;
      double py = height - bottom - v / maxY * plotH;
      b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"end\">%.1f</text>%n", left - 5,
          py + 4, v));
    }
    b.append(String.format(Locale.ROOT, "<text x=\"%.0f\" y=\"%d\" text-anchor=\"middle\">shards</text>%n",
        left + plotW / 2, height - 5));
    b.append(String.format(Locale.ROOT, "<text x=\"12\" y=\"%.0f\" transform=\"rotate(-90 12 %.0f)\""
        + " text-anchor=\"middle\">client CPU per query (ms)</text>%n", top + plotH / 2, top + plotH / 2));
    Variant[] variants = sweeps.get(0).results().keySet().toArray(Variant[]::new);
    for (int k = 0; k < variants.length; k++) {
      Variant v = variants[k];
      StringBuilder points = new StringBuilder();
      for (Sweep s : sweeps) {
        double px = left + s.shards() / maxX * plotW;
        double py = height - bottom - s.results().get(v).cpuMicros() / 1e3 / maxY * plotH;
        points.append(String.format(Locale.ROOT, "%.1f,%.1f ", px, py));
      }
      b.append(String.format(Locale.ROOT, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"%s\"/>%n",
          colours[k], points.toString().trim()));
      b.append(String.format(Locale.ROOT, "<text x=\"%.0f\" y=\"%d\" fill=\"%s\">%s</text>%n", left + plotW + 10,
          top + 15 + 16 * k, colours[k], v.label.replace("`", "")));
    }
    b.append("</svg>\n");
    return b.toString();
  }

  static final class Options {
    int[] shards = {1, 8, 32, 64, 128};
    int rows = 20_000;
    int rounds = 5;
    int ops = 100;
    int warmup = 100;
    Path docs = Path.of("docs/benchmarks.md");
    Path chart = Path.of("docs/scatter-sweep.svg");
    boolean parts;
    /** Only these variants (for a profile of one query); null for all. */
    java.util.Set<Variant> variants;

    static Options parse(String[] args) {
      Options o = new Options();
      String keys = "shards, rows, rounds, ops, warmup, docs, chart, parts, variants";
      for (Map.Entry<String, String> arg : Workloads.keyValues(args, keys).entrySet()) {
        String key = arg.getKey();
        String value = arg.getValue();
        switch (key) {
          case "shards" -> o.shards = Arrays.stream(value.split(","))
              .mapToInt(v -> Workloads.positive(key, Integer.parseInt(v.trim()))).toArray();
          case "rows" -> o.rows = Workloads.positive(key, Integer.parseInt(value));
          case "rounds" -> o.rounds = Workloads.positive(key, Integer.parseInt(value));
          case "ops" -> o.ops = Workloads.positive(key, Integer.parseInt(value));
          case "warmup" -> o.warmup = Workloads.nonNegative(key, Integer.parseInt(value));
          case "docs" -> o.docs = value.equals("none") ? null : Path.of(value);
          case "chart" -> o.chart = value.equals("none") ? null : Path.of(value);
          case "parts" -> o.parts = Boolean.parseBoolean(value);
          case "variants" -> o.variants = Arrays.stream(value.split(","))
              .map(v -> Variant.valueOf(v.trim().toUpperCase(Locale.ROOT)))
              .collect(java.util.stream.Collectors.toCollection(() -> java.util.EnumSet.noneOf(Variant.class)));
          default -> throw new IllegalArgumentException("Unknown option '" + key + "'; options are " + keys);
        }
      }
      if (o.variants != null && (o.docs != null || o.chart != null)) {
        throw new IllegalArgumentException("variants=" + o.variants + " measures only some queries: its report must"
            + " not replace the docs' or the chart's; add docs=none chart=none");
      }
      return o;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "shards=%s rows=%d rounds=%d ops=%d warmup=%d%s%s",
          Arrays.stream(shards).mapToObj(Integer::toString).collect(java.util.stream.Collectors.joining(",")), rows,
          rounds, ops, warmup, parts ? " parts=true" : "", variants == null ? "" : " variants=" + variants);
    }
  }
}
