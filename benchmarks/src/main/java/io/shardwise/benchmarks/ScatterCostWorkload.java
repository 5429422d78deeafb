package io.shardwise.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.hibernate.SessionFactory;

/**
 * What one scatter-gather query costs the client, per shard, beside a point lookup and a fan-out
 * written by hand with JDBC, on real shards (testkit, one PostgreSQL primary per shard), one caller
 * thread. The query is a top-N: the 20 newest rows of all shards ({@code order by id desc}, limit
 * 20), as entities.
 *
 * <p>Every variant runs in every round, the order rotated and reversed from round to round so that
 * drift on a shared machine hits all alike; a round runs {@code ops} operations of a variant and
 * records its throughput and the CPU time of every JVM thread (the caller, the scatter executor's
 * threads and the JVM's own), divided by the operations. The report gives
 * the medians over rounds, and ratios within the run only. The sequential variants, each adding one
 * thing to the one before, break the cost of a shard's part down:
 *
 * <ul>
 *   <li>{@code jdbc sequential}: one autocommit statement per shard on a HikariCP pool, rows mapped
 *       by hand, merged in Java — the floor;</li>
 *   <li>{@code + read-only transaction}: the same inside {@code setAutoCommit(false)} / commit;</li>
 *   <li>{@code + SET LOCAL statement_timeout}: the round trip the scatter path used to make before
 *       its statement;</li>
 *   <li>{@code Hibernate session per shard}: {@code forShard(id).readOnly().fromSession} with the
 *       same SQL as a native entity query: session, routing and materialisation;</li>
 *   <li>{@code jdbc parallel}: the floor fanned out on a thread pool: the thread hand-off;</li>
 *   <li>{@code shards.scatter()}: planning, fan-out, merge and materialisation, all of Shardwise.</li>
 * </ul>
 *
 * <p>Beside them, three query shapes each run three ways: the top-N, a {@code count(*)} and
 * {@code select status, count(*), sum(balance_cents) ... group by status}, through the hand parallel
 * fan-out, {@code shards.scatter()} and ShardingSphere-JDBC. ShardingSphere is reached by reflection
 * only ({@value #SHARDING_SPHERE_FACTORY}, from YAML written here for the topology's shard URLs); its
 * variants are left out when it is not on the class path.
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.ScatterCostWorkload
 * </pre>
 *
 * Options as {@code key=value}: {@code shards=2,8} (one topology after the other),
 * {@code rowsPerShard=500}, {@code rounds=7}, {@code ops=300} (per variant and round),
 * {@code warmup=300} (per variant, before the rounds), {@code docs=docs/benchmarks.md} ({@code none}
 * to leave it alone), {@code variants=all} ({@code cost}, {@code peer} or variant names such as
 * {@code scatter,ss_top}).
 */
public final class ScatterCostWorkload {
  static final String SECTION = "## Scatter-gather: client cost per shard";
  static final String BEGIN = "<!-- ScatterCostWorkload:begin (generated; rerun the workload to replace) -->";
  static final String END = "<!-- ScatterCostWorkload:end -->";
  private static final String TAG = "[scatter-cost] ";
  static final int TOP = 20;
  static final String TOP_HQL = "from ScatterAccount a order by a.id desc";
  static final String TOP_SQL = "select id, email, status, balance_cents from scatter_account order by id desc limit "
      + TOP;
  static final String[] STATUSES = {"ACTIVE", "CLOSED", "FROZEN"};
  static final String COUNT_HQL = "select count(a) from ScatterAccount a";
  static final String COUNT_SQL = "select count(*) from scatter_account";
  static final String GROUP_HQL = "select a.status, count(a), sum(a.balanceCents) from ScatterAccount a group by a.status";
  static final String GROUP_SQL = "select status, count(*), sum(balance_cents) from scatter_account group by status";
  /** Reached by reflection only: the workload never imports ShardingSphere. */
  static final String SHARDING_SPHERE_FACTORY =
      "org.apache.shardingsphere.driver.api.yaml.YamlShardingSphereDataSourceFactory";

  enum Variant {
    POINT("point lookup (`forKey(id).fromSession(find)`)"),
    JDBC_SEQUENTIAL("jdbc sequential (autocommit, floor)"),
    JDBC_TRANSACTION("jdbc sequential + read-only transaction"),
    JDBC_TIMEOUT("jdbc sequential + transaction + `SET LOCAL statement_timeout`"),
    SESSION_SEQUENTIAL("Hibernate session per shard, sequential (native entity query)"),
    JDBC_PARALLEL("jdbc parallel (hand fan-out, Java merge)"),
    SCATTER("`shards.scatter()` top-N"),
    SS_TOP("ShardingSphere-JDBC top-N", Shape.TOP, true),
    COUNT_JDBC_PARALLEL("jdbc parallel `count(*)`", Shape.COUNT, false),
    COUNT_SCATTER("`shards.scatter()` `count(*)`", Shape.COUNT, false),
    COUNT_SS("ShardingSphere-JDBC `count(*)`", Shape.COUNT, true),
    GROUP_JDBC_PARALLEL("jdbc parallel `group by status`", Shape.GROUP, false),
    GROUP_SCATTER("`shards.scatter()` `group by status`", Shape.GROUP, false),
    GROUP_SS("ShardingSphere-JDBC `group by status`", Shape.GROUP, true);

    final String label;
    final Shape shape;
    final boolean shardingSphere;

    Variant(String label) {
      this(label, Shape.TOP, false);
    }

    Variant(String label, Shape shape, boolean shardingSphere) {
      this.label = label;
      this.shape = shape;
      this.shardingSphere = shardingSphere;
    }
  }

  /** The three query shapes compared against ShardingSphere-JDBC: hand fan-out, Shardwise, ShardingSphere. */
  enum Shape {
    TOP("top-N (`order by id desc limit 20`)"),
    COUNT("`count(*)`"),
    GROUP("`status, count(*), sum(balance_cents) ... group by status`");

    final String label;

    Shape(String label) {
      this.label = label;
    }

    Variant hand() {
      return switch (this) {
        case TOP -> Variant.JDBC_PARALLEL;
        case COUNT -> Variant.COUNT_JDBC_PARALLEL;
        case GROUP -> Variant.GROUP_JDBC_PARALLEL;
      };
    }

    Variant shardwise() {
      return switch (this) {
        case TOP -> Variant.SCATTER;
        case COUNT -> Variant.COUNT_SCATTER;
        case GROUP -> Variant.GROUP_SCATTER;
      };
    }

    Variant shardingSphere() {
      return switch (this) {
        case TOP -> Variant.SS_TOP;
        case COUNT -> Variant.COUNT_SS;
        case GROUP -> Variant.GROUP_SS;
      };
    }
  }

  /** One round of one variant. */
  record Round(double opsPerSecond, double cpuMicrosPerOp) {}

  /** Medians over the rounds of one variant. */
  record Result(Variant variant, double opsPerSecond, double cpuMicrosPerOp) {}

  record ShardCountResult(int shards, Map<Variant, Result> results) {
    double cpu(Variant v) {
      return results.get(v).cpuMicrosPerOp();
    }

    double ops(Variant v) {
      return results.get(v).opsPerSecond();
    }
  }

  private final ShardedSessions shards;
  private final List<String> shardIds;
  private final List<HikariDataSource> jdbc;
  private final ExecutorService fanOut;
  private final long maxId;
  /** ShardingSphere-JDBC over the same shards, or null when it is not on the class path or not selected. */
  private final DataSource shardingSphere;
  /** By status: {count, sum of balance_cents}, as loaded. */
  private final Map<String, List<Long>> expectedGroups;
  private final SplittableRandom random = new SplittableRandom(42);

  private ScatterCostWorkload(ShardedSessions shards, List<HikariDataSource> jdbc, long maxId,
      DataSource shardingSphere) {
    this.shards = shards;
    this.shardingSphere = shardingSphere;
    this.expectedGroups = expectedGroups(maxId);
    this.shardIds = shards.shardIds().stream().sorted().toList();
    this.jdbc = jdbc;
    this.maxId = maxId;
    this.fanOut = Executors.newFixedThreadPool(jdbc.size(), r -> {
      Thread t = new Thread(r, "hand-fan-out");
      t.setDaemon(true);
      return t;
    });
  }

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    Workloads.quietLibraries();
    System.out.println(TAG + options);
    double loadBefore = Workloads.loadAverage();
    List<ShardCountResult> all = new ArrayList<>();
    String postgres = "?";
    for (int count : options.shards) {
      System.out.println(TAG + "starting " + count + " shards ...");
      try (PostgresTopology pg = PostgresTopology.builder().shards(count).start()) {
        postgres = Workloads.serverVersion(pg.shard(0).primary());
        all.add(runOn(pg, options));
      }
    }
    double loadAfter = Workloads.loadAverage();
    String report = report(options, all, postgres, loadBefore, loadAfter);
    System.out.println();
    System.out.println(report);
    if (options.docs != null) {
      Workloads.writeSection(options.docs, SECTION, BEGIN, END, INTRO, report);
      System.out.println(TAG + "results written to " + options.docs);
    }
  }

  private static ShardCountResult runOn(PostgresTopology pg, Options options) throws Exception {
    Shardwise.Builder builder = Shardwise.configure().credentials("postgres", null).ddl("create").schema("create")
        .entities(ScatterAccount.class);
    List<HikariDataSource> jdbc = new ArrayList<>();
    for (PostgresShard shard : pg.shards()) {
      builder.shard("shard" + shard.index(), shard.primary().jdbcUrl());
      HikariConfig hc = new HikariConfig();
      hc.setPoolName("hand-" + shard.index());
      hc.setJdbcUrl(shard.primary().jdbcUrl());
      hc.setUsername("postgres");
      hc.setMaximumPoolSize(2);
      jdbc.add(new HikariDataSource(hc));
    }
    DataSource shardingSphere = null;
    try (SessionFactory sessionFactory = builder.buildSessionFactory()) {
      ShardedSessions shards = ShardedSessions.of(sessionFactory);
      long rows = (long) options.rowsPerShard * pg.shards().size();
      load(shards, rows);
      if (options.variants.stream().anyMatch(v -> v.shardingSphere)) {
        shardingSphere = shardingSphere(pg);
      }
      ScatterCostWorkload workload = new ScatterCostWorkload(shards, jdbc, rows, shardingSphere);
      try {
        return workload.measure(options);
      } finally {
        workload.fanOut.shutdownNow();
      }
    } finally {
      jdbc.forEach(HikariDataSource::close);
      if (shardingSphere instanceof AutoCloseable closeable) {
        closeable.close();
      }
    }
  }

  static boolean shardingSphereAvailable() {
    try {
      Class.forName(SHARDING_SPHERE_FACTORY, false, ScatterCostWorkload.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  /**
   * ShardingSphere-JDBC over the topology's shards, built by reflection from YAML written here:
   * {@code scatter_account} sharded by {@code id} over one data source per shard, named after the
   * Shardwise shard ids and placed by {@link ShardwisePlacementAlgorithm} (so keys land where
   * Shardwise puts them); a query without the key goes to every data source. Each data source is a
   * HikariCP pool of 2, like the hand fan-out's. Everything else is ShardingSphere's default.
   */
  private static DataSource shardingSphere(PostgresTopology pg) throws Exception {
    List<String> ids = new ArrayList<>();
    List<String> urls = new ArrayList<>();
    for (PostgresShard shard : pg.shards()) {
      ids.add("shard" + shard.index());
      urls.add(shard.primary().jdbcUrl());
    }
    String yaml = shardingSphereYaml(ids, urls);
    Class<?> factory = Class.forName(SHARDING_SPHERE_FACTORY);
    return (DataSource) factory.getMethod("createDataSource", byte[].class).invoke(null,
        (Object) yaml.getBytes(StandardCharsets.UTF_8));
  }

  static String shardingSphereYaml(List<String> shardIds, List<String> jdbcUrls) {
    StringBuilder y = new StringBuilder("databaseName: scatter_cost\ndataSources:\n");
    for (int i = 0; i < shardIds.size(); i++) {
      y.append("  ").append(shardIds.get(i)).append(":\n")
          .append("    dataSourceClassName: com.zaxxer.hikari.HikariDataSource\n")
          .append("    jdbcUrl: '").append(jdbcUrls.get(i).replace("'", "''")).append("'\n")
          .append("    username: postgres\n")
          .append("    maximumPoolSize: 2\n");
    }
    y.append("rules:\n")
        .append("  - !SHARDING\n")
        .append("    tables:\n")
        .append("      scatter_account:\n")
        .append("        actualDataNodes: ")
        .append(shardIds.stream().map(id -> id + ".scatter_account").collect(Collectors.joining(","))).append("\n")
        .append("        databaseStrategy:\n")
        .append("          standard:\n")
        .append("            shardingColumn: id\n")
        .append("            shardingAlgorithmName: shardwise_placement\n")
        .append("    shardingAlgorithms:\n")
        .append("      shardwise_placement:\n")
        .append("        type: CLASS_BASED\n")
        .append("        props:\n")
        .append("          strategy: STANDARD\n")
        .append("          algorithmClassName: ").append(ShardwisePlacementAlgorithm.class.getName()).append("\n")
        .append("          ").append(ShardwisePlacementAlgorithm.SHARDS).append(": ")
        .append(String.join(",", shardIds)).append("\n");
    return y.toString();
  }

  static String status(long id) {
    return STATUSES[(int) (id % STATUSES.length)];
  }

  static long balance(long id) {
    return id % 100_000;
  }

  static Map<String, List<Long>> expectedGroups(long rows) {
    Map<String, long[]> sums = new TreeMap<>();
    for (long id = 1; id <= rows; id++) {
      long[] g = sums.computeIfAbsent(status(id), k -> new long[2]);
      g[0]++;
      g[1] += balance(id);
    }
    Map<String, List<Long>> expected = new TreeMap<>();
    sums.forEach((k, g) -> expected.put(k, List.of(g[0], g[1])));
    return expected;
  }

  static void load(ShardedSessions shards, long rows) {
    Map<String, List<Long>> byShard = new java.util.TreeMap<>();
    for (long id = 1; id <= rows; id++) {
      byShard.computeIfAbsent(shards.shardFor(id), k -> new ArrayList<>()).add(id);
    }
    long started = System.nanoTime();
    byShard.forEach((shard, ids) -> shards.forShard(shard).inTransaction(session -> ids.forEach(id ->
        session.persist(new ScatterAccount(id, ScatterGatherWorkload.email(id), status(id), balance(id))))));
    System.out.printf(Locale.ROOT, "%sloaded %d rows on %d shards in %.1f s%n", TAG, rows, byShard.size(),
        (System.nanoTime() - started) / 1e9);
  }

  // --- the variants -------------------------------------------------------------------------

  private void run(Variant variant) throws Exception {
    switch (variant) {
      case POINT -> {
        long id = random.nextLong(1, maxId + 1);
        ScatterAccount found = shards.forKey(id).fromSession(s -> s.find(ScatterAccount.class, id));
        if (found == null || found.getId() != id) {
          throw new IllegalStateException("point lookup of " + id + " found " + found);
        }
      }
      case JDBC_SEQUENTIAL, JDBC_TRANSACTION, JDBC_TIMEOUT -> {
        List<ScatterAccount> rows = new ArrayList<>();
        for (HikariDataSource pool : jdbc) {
          rows.addAll(jdbcPart(pool, variant));
        }
        check(merge(rows), variant);
      }
      case SESSION_SEQUENTIAL -> {
        List<ScatterAccount> rows = new ArrayList<>();
        for (String shardId : shardIds) {
          rows.addAll(shards.forShard(shardId).readOnly().fromSession(s ->
              s.createNativeQuery(TOP_SQL, ScatterAccount.class).getResultList()));
        }
        check(merge(rows), variant);
      }
      case JDBC_PARALLEL -> {
        List<Future<List<ScatterAccount>>> parts = new ArrayList<>(jdbc.size());
        for (HikariDataSource pool : jdbc) {
          parts.add(fanOut.submit(() -> jdbcPart(pool, Variant.JDBC_SEQUENTIAL)));
        }
        List<ScatterAccount> rows = new ArrayList<>();
        for (Future<List<ScatterAccount>> part : parts) {
          rows.addAll(part.get());
        }
        check(merge(rows), variant);
      }
      case SCATTER -> check(shards.scatter().createQuery(TOP_HQL, ScatterAccount.class).setMaxResults(TOP)
          .getResultList(), variant);
      case SS_TOP -> {
        List<ScatterAccount> rows = new ArrayList<>(TOP);
        try (Connection c = shardingSphere.getConnection(); PreparedStatement ps = c.prepareStatement(TOP_SQL);
            ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            rows.add(new ScatterAccount(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4)));
          }
        }
        check(rows, variant);
      }
      case COUNT_JDBC_PARALLEL -> {
        long total = 0;
        for (long part : fanOut(pool -> count(pool))) {
          total += part;
        }
        checkCount(total, variant);
      }
      case COUNT_SCATTER -> checkCount(shards.scatter().createQuery(COUNT_HQL, Long.class).getResultList().get(0),
          variant);
      case COUNT_SS -> checkCount(count(shardingSphere), variant);
      case GROUP_JDBC_PARALLEL -> {
        Map<String, List<Long>> merged = new TreeMap<>();
        for (Map<String, List<Long>> part : fanOut(pool -> groups(pool))) {
          part.forEach((k, g) -> merged.merge(k, g, (a, b) -> List.of(a.get(0) + b.get(0), a.get(1) + b.get(1))));
        }
        checkGroups(merged, variant);
      }
      case GROUP_SCATTER -> {
        Map<String, List<Long>> groups = new TreeMap<>();
        for (Object[] row : shards.scatter().createQuery(GROUP_HQL, Object[].class).getResultList()) {
          groups.put((String) row[0], List.of(((Number) row[1]).longValue(), ((Number) row[2]).longValue()));
        }
        checkGroups(groups, variant);
      }
      case GROUP_SS -> checkGroups(groups(shardingSphere), variant);
      default -> throw new IllegalArgumentException(variant.name());
    }
  }

  @FunctionalInterface
  interface Part<T> {
    T on(DataSource pool) throws SQLException;
  }

  /** The hand fan-out: one autocommit statement per shard on the thread pool, results in shard order. */
  private <T> List<T> fanOut(Part<T> part) throws Exception {
    List<Future<T>> parts = new ArrayList<>(jdbc.size());
    for (HikariDataSource pool : jdbc) {
      parts.add(fanOut.submit(() -> part.on(pool)));
    }
    List<T> results = new ArrayList<>(parts.size());
    for (Future<T> f : parts) {
      results.add(f.get());
    }
    return results;
  }

  private static long count(DataSource ds) throws SQLException {
    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(COUNT_SQL);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static Map<String, List<Long>> groups(DataSource ds) throws SQLException {
    Map<String, List<Long>> groups = new TreeMap<>();
    try (Connection c = ds.getConnection(); PreparedStatement ps = c.prepareStatement(GROUP_SQL);
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        groups.put(rs.getString(1), List.of(rs.getLong(2), rs.getLong(3)));
      }
    }
    return groups;
  }

  private void checkCount(long count, Variant variant) {
    if (count != maxId) {
      throw new IllegalStateException(variant + " counted " + count + ", expected " + maxId);
    }
  }

  private void checkGroups(Map<String, List<Long>> groups, Variant variant) {
    if (!groups.equals(expectedGroups)) {
      throw new IllegalStateException(variant + " returned " + groups + ", expected " + expectedGroups);
    }
  }

  private static List<ScatterAccount> jdbcPart(HikariDataSource pool, Variant variant) throws SQLException {
    try (Connection c = pool.getConnection()) {
      boolean transaction = variant != Variant.JDBC_SEQUENTIAL;
      if (transaction) {
        c.setAutoCommit(false);
        c.setReadOnly(true);
      }
      try {
        if (variant == Variant.JDBC_TIMEOUT) {
          try (Statement s = c.createStatement()) {
            s.execute("SET LOCAL statement_timeout = 30000");
          }
        }
        List<ScatterAccount> rows = new ArrayList<>(TOP);
        try (PreparedStatement ps = c.prepareStatement(TOP_SQL); ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            rows.add(new ScatterAccount(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4)));
          }
        }
        if (transaction) {
          c.commit();
        }
        return rows;
      } finally {
        if (transaction) {
          c.setReadOnly(false);
          c.setAutoCommit(true);
        }
      }
    }
  }

  private static List<ScatterAccount> merge(List<ScatterAccount> rows) {
    rows.sort((a, b) -> Long.compare(b.getId(), a.getId()));
    return rows.subList(0, Math.min(TOP, rows.size()));
  }

  private void check(List<ScatterAccount> top, Variant variant) {
    if (top.size() != TOP || top.get(0).getId() != maxId || top.get(TOP - 1).getId() != maxId - TOP + 1) {
      throw new IllegalStateException(variant + " returned ids " + top.stream().map(a -> Long.toString(a.getId()))
          .collect(Collectors.joining(",")) + ", expected " + maxId + " down to " + (maxId - TOP + 1));
    }
  }

  // --- measurement --------------------------------------------------------------------------

  private ShardCountResult measure(Options options) throws Exception {
    Variant[] variants = options.variants.toArray(Variant[]::new);
    System.out.printf(Locale.ROOT, "%s%d shards: warm-up %d per variant, then %d rounds of %d per variant%n", TAG,
        shardIds.size(), options.warmup, options.rounds, options.ops);
    for (Variant v : variants) {
      for (int i = 0; i < options.warmup; i++) {
        run(v);
      }
    }
    Map<Variant, List<Round>> rounds = new EnumMap<>(Variant.class);
    for (int r = 0; r < options.rounds; r++) {
      List<Variant> order = new ArrayList<>(Arrays.asList(variants));
      java.util.Collections.rotate(order, r);
      if (r % 2 == 1) {
        java.util.Collections.reverse(order);
      }
      for (Variant v : order) {
        Map<Long, Long> cpu = threadCpu();
        long started = System.nanoTime();
        for (int i = 0; i < options.ops; i++) {
          run(v);
        }
        long wall = System.nanoTime() - started;
        long cpuUsed = cpuSince(cpu);
        rounds.computeIfAbsent(v, k -> new ArrayList<>()).add(
            new Round(options.ops / (wall / 1e9), cpuUsed / 1e3 / options.ops));
      }
      System.out.printf(Locale.ROOT, "%s  round %d/%d: %s%n", TAG, r + 1, options.rounds,
          order.stream().map(v -> String.format(Locale.ROOT, "%s %.0f µs CPU/op", v.name(),
              rounds.get(v).get(rounds.get(v).size() - 1).cpuMicrosPerOp())).collect(Collectors.joining(", ")));
    }
    Map<Variant, Result> results = new EnumMap<>(Variant.class);
    rounds.forEach((v, list) -> results.put(v, new Result(v, Workloads.median(list, Round::opsPerSecond),
        Workloads.median(list, Round::cpuMicrosPerOp))));
    return new ShardCountResult(shardIds.size(), results);
  }

  /**
   * CPU time of every live thread of the JVM, in ns, by thread id: the caller, the fan-out threads
   * and the JVM's own (compiler, GC). The process's total from the OS counts in 10 ms ticks, too
   * coarse for a round.
   */
  private static Map<Long, Long> threadCpu() {
    java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<Long, Long> cpu = new java.util.HashMap<>();
    for (long id : threads.getAllThreadIds()) {
      long t = threads.getThreadCpuTime(id);
      if (t > 0) {
        cpu.put(id, t);
      }
    }
    return cpu;
  }

  /**
   * CPU used since {@code before} by the threads alive now: an idle pool thread that exits during a
   * round (the scatter executor's do after 30 s) must not take its earlier CPU time out of the sum.
   */
  private static long cpuSince(Map<Long, Long> before) {
    long used = 0;
    for (Map.Entry<Long, Long> now : threadCpu().entrySet()) {
      used += now.getValue() - before.getOrDefault(now.getKey(), 0L);
    }
    return used;
  }

  // --- report -------------------------------------------------------------------------------

  static String report(Options o, List<ShardCountResult> all, String postgres, double loadBefore,
      double loadAfter) {
    StringBuilder b = new StringBuilder(BEGIN).append("\n\n");
    b.append(String.format(Locale.ROOT, "One run, %s. Machine: %d cores as the JVM sees them, shared with other builds"
            + " (load average %.1f at the start, %.1f at the end); %s %s; PostgreSQL %s from the testkit's embedded"
            + " bundle, every shard and the workload on the same machine; one caller thread. Settings: %s. Medians"
            + " over %d rounds; CPU is the CPU time of all JVM threads per operation (µs).%n",
        LocalDate.now(), Runtime.getRuntime().availableProcessors(), loadBefore, loadAfter,
        System.getProperty("java.vm.name"), System.getProperty("java.version"), postgres, o, o.rounds));
    if (all.stream().anyMatch(r -> r.results().keySet().stream().anyMatch(v -> v.shardingSphere))) {
      b.append(String.format(Locale.ROOT, "%nShardingSphere-JDBC: %s, built by reflection from YAML written by the"
          + " workload (`scatter_account` sharded by `id` over one data source per shard, placed as Shardwise places"
          + " rows; HikariCP pool of 2 per shard like the hand fan-out's; every other setting ShardingSphere's"
          + " default), queried with plain JDBC, rows mapped by hand as in the hand fan-out. Shardwise's top-N"
          + " materialises Hibernate entities; its aggregates return scalars.%n", shardingSphereVersion()));
    }
    for (ShardCountResult r : all) {
      int n = r.shards();
      b.append(String.format(Locale.ROOT, "%n**%d shards.**%n%n", n));
      peerTable(b, r);
      b.append("| variant | ops/s | CPU µs/op | CPU µs per shard | ÷ jdbc parallel of its shape (ops/s) |\n");
      b.append("|---|---:|---:|---:|---:|\n");
      for (Result result : r.results().values()) {
        Variant v = result.variant();
        boolean perShard = v != Variant.POINT;
        Result hand = r.results().get(v.shape.hand());
        b.append(String.format(Locale.ROOT, "| %s | %,.0f | %.0f | %s | %s |%n", v.label,
            result.opsPerSecond(), result.cpuMicrosPerOp(),
            perShard ? String.format(Locale.ROOT, "%.1f", result.cpuMicrosPerOp() / n) : "",
            hand == null ? "" : String.format(Locale.ROOT, "%.2fx", result.opsPerSecond() / hand.opsPerSecond())));
      }
      if (!r.results().keySet().containsAll(Options.variants("cost"))) {
        continue;
      }
      double point = r.cpu(Variant.POINT);
      double floor = r.cpu(Variant.JDBC_SEQUENTIAL);
      b.append(String.format(Locale.ROOT, "%nPer shard, CPU µs: read-only transaction %.1f, `SET LOCAL` round trip"
              + " %.1f, Hibernate session + materialisation %.1f, thread hand-off %.1f (differences of the rows"
              + " above, divided by %d shards); planning, executor and merge of `shards.scatter()` beyond a session"
              + " per shard: %.0f µs per query. Scatter per shard ÷ point lookup: **%.2fx**; scatter ÷ hand fan-out"
              + " (ops/s): **%.2fx**; scatter ÷ sequential sessions (ops/s): **%.2fx**.%n",
          (r.cpu(Variant.JDBC_TRANSACTION) - floor) / n,
          (r.cpu(Variant.JDBC_TIMEOUT) - r.cpu(Variant.JDBC_TRANSACTION)) / n,
          (r.cpu(Variant.SESSION_SEQUENTIAL) - floor) / n, (r.cpu(Variant.JDBC_PARALLEL) - floor) / n, n,
          r.cpu(Variant.SCATTER) - r.cpu(Variant.SESSION_SEQUENTIAL),
          r.cpu(Variant.SCATTER) / n / point, r.ops(Variant.SCATTER) / r.ops(Variant.JDBC_PARALLEL),
          r.ops(Variant.SCATTER) / r.ops(Variant.SESSION_SEQUENTIAL)));
    }
    b.append("\n").append(END).append("\n");
    return b.toString();
  }

  /** Per shape present in full: hand fan-out, Shardwise, ShardingSphere-JDBC, and the verdict. */
  private static void peerTable(StringBuilder b, ShardCountResult r) {
    List<Shape> shapes = Arrays.stream(Shape.values()).filter(s -> r.results().containsKey(s.hand())
        && r.results().containsKey(s.shardwise()) && r.results().containsKey(s.shardingSphere())).toList();
    if (shapes.isEmpty()) {
      return;
    }
    b.append("| shape | ops/s hand / Shardwise / ShardingSphere | CPU µs/op hand / Shardwise / ShardingSphere"
        + " | Shardwise ÷ hand | ShardingSphere ÷ hand | Shardwise ÷ ShardingSphere (ops/s) | Shardwise |\n");
    b.append("|---|---:|---:|---:|---:|---:|---|\n");
    for (Shape s : shapes) {
      double hand = r.ops(s.hand());
      double sw = r.ops(s.shardwise());
      double ss = r.ops(s.shardingSphere());
      b.append(String.format(Locale.ROOT, "| %s | %,.0f / %,.0f / %,.0f | %.0f / %.0f / %.0f | %.2fx | %.2fx | **%.2fx**"
              + " | %s |%n", s.label, hand, sw, ss, r.cpu(s.hand()), r.cpu(s.shardwise()), r.cpu(s.shardingSphere()),
          sw / hand, ss / hand, sw / ss, sw > ss ? "ahead" : "behind"));
    }
    b.append("\n");
  }

  private static String shardingSphereVersion() {
    try {
      Package p = Class.forName(SHARDING_SPHERE_FACTORY).getPackage();
      String v = p == null ? null : p.getImplementationVersion();
      return v == null ? "the version on the class path (5.5.2 in benchmarks/pom.xml)" : v;
    } catch (ClassNotFoundException e) {
      return "not on the class path";
    }
  }

  static final String INTRO = """
      `ScatterCostWorkload` measures what a scatter-gather query costs the client per shard: the 20
      newest rows of all shards as entities through `shards.scatter()`, beside a point lookup, a
      fan-out written by hand with JDBC (parallel and sequential), and sequential variants that add
      a read-only transaction, a `SET LOCAL statement_timeout` round trip and a Hibernate session per
      shard one at a time, so that their differences break the cost down. It also compares three
      query shapes (the top-N, a `count(*)` and a `group by status` with `count(*)` and
      `sum(balance_cents)`) across the hand fan-out, `shards.scatter()` and ShardingSphere-JDBC
      (when on the class path; built by reflection from YAML the workload writes for the topology's
      shards). All variants alternate in every round of one run; read the ratios, not the absolute
      numbers. Run from the repository root (`variants=peer` runs only the comparison, `variants=cost`
      only the breakdown):

      ```
      mvn -B -q -pl benchmarks -am package -DskipTests && java -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.ScatterCostWorkload
      ```
      """;

  // --- options ------------------------------------------------------------------------------

  static final class Options {
    int[] shards = {2, 8};
    int rowsPerShard = 500;
    int rounds = 7;
    int ops = 500;
    int warmup = 300;
    Path docs = Path.of("docs/benchmarks.md");
    List<Variant> variants = variants("all");

    /**
     * {@code all}, {@code cost} (the breakdown: point lookup to {@code shards.scatter()} top-N),
     * {@code peer} (hand fan-out, Shardwise and ShardingSphere-JDBC for each shape) or variant names
     * ({@code scatter,ss_top,...}). ShardingSphere variants are dropped when it is not on the class path.
     */
    static List<Variant> variants(String value) {
      List<Variant> chosen = switch (value.trim()) {
        case "all" -> List.of(Variant.values());
        case "cost" -> Arrays.stream(Variant.values()).filter(v -> v.ordinal() <= Variant.SCATTER.ordinal()).toList();
        case "peer" -> Arrays.stream(Shape.values())
            .flatMap(s -> java.util.stream.Stream.of(s.hand(), s.shardwise(), s.shardingSphere())).toList();
        default -> Arrays.stream(value.split(",")).map(v -> Variant.valueOf(v.trim().toUpperCase(Locale.ROOT)))
            .distinct().toList();
      };
      if (!shardingSphereAvailable()) {
        chosen = chosen.stream().filter(v -> !v.shardingSphere).toList();
      }
      if (chosen.isEmpty()) {
        throw new IllegalArgumentException("no variants left of '" + value + "'");
      }
      return chosen;
    }

    static Options parse(String[] args) {
      Options o = new Options();
      String keys = "shards, rowsPerShard, rounds, ops, warmup, docs, variants";
      for (Map.Entry<String, String> arg : Workloads.keyValues(args, keys).entrySet()) {
        String key = arg.getKey();
        String value = arg.getValue();
        switch (key) {
          case "shards" -> o.shards = Arrays.stream(value.split(","))
              .mapToInt(v -> Workloads.positive(key, Integer.parseInt(v.trim()))).toArray();
          case "rowsPerShard" -> o.rowsPerShard = Math.max(TOP, Workloads.positive(key, Integer.parseInt(value)));
          case "rounds" -> o.rounds = Workloads.positive(key, Integer.parseInt(value));
          case "ops" -> o.ops = Workloads.positive(key, Integer.parseInt(value));
          case "warmup" -> o.warmup = Workloads.nonNegative(key, Integer.parseInt(value));
          case "docs" -> o.docs = value.equals("none") ? null : Path.of(value);
          case "variants" -> o.variants = variants(value);
          default -> throw new IllegalArgumentException("unknown option '" + key + "'; known: " + keys);
        }
      }
      return o;
    }

    @Override
    public String toString() {
      return String.format(Locale.ROOT, "shards=%s rowsPerShard=%d rounds=%d ops=%d warmup=%d variants=%s",
          Arrays.stream(shards).mapToObj(Integer::toString).collect(Collectors.joining(",")), rowsPerShard, rounds,
          ops, warmup, variants.stream().map(v -> v.name().toLowerCase(Locale.ROOT))
              .collect(Collectors.joining(",")));
    }
  }
}
