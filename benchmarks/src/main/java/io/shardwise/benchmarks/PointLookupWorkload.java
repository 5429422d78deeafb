package io.shardwise.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
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
import java.util.Properties;
import java.util.function.LongFunction;
import javax.sql.DataSource;
import org.apache.shardingsphere.driver.api.ShardingSphereDataSourceFactory;
import org.apache.shardingsphere.infra.algorithm.core.config.AlgorithmConfiguration;
import org.apache.shardingsphere.sharding.api.config.ShardingRuleConfiguration;
import org.apache.shardingsphere.sharding.api.config.rule.ShardingTableRuleConfiguration;
import org.apache.shardingsphere.sharding.api.config.strategy.sharding.StandardShardingStrategyConfiguration;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.AvailableSettings;
import org.hibernate.cfg.Configuration;
import org.postgresql.PGConnection;

/**
 * End-to-end single-shard point lookups: {@code session.find(Customer.class, id)} in a short
 * read-only session, through three systems, in one JVM and one run, so that every ratio compares
 * numbers taken on the same machine at the same time.
 *
 * <ul>
 *   <li><b>baseline</b>: plain Hibernate on one HikariCP pool over one PostgreSQL server that holds
 *       every row;</li>
 *   <li><b>shardwise</b>: {@code ShardedSessions.forKey(id).fromSession(s -> s.find(...))} over N
 *       shard servers, each holding the rows Shardwise routes to it;</li>
 *   <li><b>shardingsphere</b>: plain Hibernate whose data source is a ShardingSphere-JDBC 5.5.2
 *       data source over the same N shard servers, placing keys with
 *       {@link ShardwisePlacementAlgorithm} so that it reads the very same physical rows.</li>
 * </ul>
 *
 * <p>Two controls explain the gaps: <b>shardwise-1shard</b> is Shardwise configured with one
 * shard, the baseline's own server (Shardwise's runtime cost alone), and <b>hand-routed</b> is one
 * plain Hibernate session factory per shard server, chosen by {@code ShardedSessions.shardFor}
 * (the cost of spreading the rows over N servers, without Shardwise in the session path).
 *
 * <p>Servers come from the testkit (embedded PostgreSQL 17): one topology of N shards and one
 * single server for the baseline. Rows are loaded with COPY. Then, for each thread count, the
 * systems take turns in rounds (each a warm-up and a measured interval per system) so that a noisy
 * neighbour hurts all of them alike, and the report gives each cell's median over the rounds. Beside
 * throughput it reports the client's CPU time per operation (the worker threads' CPU time from
 * {@link java.lang.management.ThreadMXBean} over the measured operations), which on a shared machine
 * moves far less than ops/s does, and the heap bytes those threads allocated per operation, which
 * does not move with the machine's load at all once the code is compiled. Each operation picks a uniformly random id; every result is
 * checked (a missing or wrong row counts as an error). Latency is measured per operation
 * (open session, find, close), percentiles are exact over all measured operations.
 *
 * <p>Run from the repository root:
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.PointLookupWorkload
 * </pre>
 *
 * <p>Settings, as {@code key=value} arguments or {@code -Dpointlookup.key=value}: {@code shards}
 * (default 2), {@code rows} (100000), {@code threads} (1,2,4), {@code warmup} (seconds, 5),
 * {@code duration} (seconds, 10), {@code rounds} (3: every system measured once per round, the
 * systems alternating; the report gives medians), {@code pool} (connections per pool, 10), {@code systems}
 * (baseline,shardwise,shardingsphere,shardwise-1shard,hand-routed), {@code report} (a Markdown
 * file for the results table, default {@code benchmarks/target/point-lookups.md}). Results are
 * recorded in {@code docs/benchmarks.md}, section "End-to-end point lookups".
 */
public final class PointLookupWorkload {
  private static final String[] COUNTRIES = {"DE", "FR", "US", "BR", "JP", "IN", "NG", "PL", "SE", "CA"};
  private static final int LOAD_CHUNK = 10_000;
  private static final String DEFAULT_SYSTEMS = "baseline,shardwise,shardingsphere,shardwise-1shard,hand-routed";

  private PointLookupWorkload() {}

  /** The systems under test, in the order they take turns. */
  enum Subject {
    BASELINE("baseline", "plain Hibernate + HikariCP, 1 server"),
    SHARDWISE("shardwise", "Shardwise"),
    SHARDINGSPHERE("shardingsphere", "Hibernate on ShardingSphere-JDBC 5.5.2"),
    /** Control: Shardwise with one shard, the baseline's own server; isolates Shardwise's runtime cost. */
    SHARDWISE_ONE("shardwise-1shard", "Shardwise, 1 shard = the baseline server"),
    /** Control: one plain Hibernate factory per shard, picked by hand; isolates the cost of N servers. */
    HAND_ROUTED("hand-routed", "plain Hibernate per shard, routed by hand");

    final String key;
    final String label;

    Subject(String key, String label) {
      this.key = key;
      this.label = label;
    }
  }

  record Settings(int shards, int rows, int[] threads, Duration warmup, Duration duration, int rounds, int pool,
      List<Subject> subjects, Path report) {
    private static final List<String> KNOWN = List.of("shards", "rows", "threads", "warmup", "duration", "rounds",
        "pool", "systems", "report");


    static Settings parse(String[] args) {
      Map<String, String> values = new LinkedHashMap<>();
      for (String name : KNOWN) {
        String value = System.getProperty("pointlookup." + name);
        if (value != null) {
          values.put(name, value);
        }
      }
      values.putAll(Workloads.keyValues(args, String.join(", ", KNOWN)));
      int shards = intValue(values, "shards", 2, 1, 64);
      int rows = intValue(values, "rows", 100_000, 1, 100_000_000);
      int[] threads = Arrays.stream(values.getOrDefault("threads", "1,2,4").split(","))
          .mapToInt(t -> parseInt("threads", t.trim(), 1, 1024)).toArray();
      Duration warmup = Duration.ofSeconds(intValue(values, "warmup", 5, 0, 3600));
      Duration duration = Duration.ofSeconds(intValue(values, "duration", 10, 1, 3600));
      int rounds = intValue(values, "rounds", 3, 1, 100);
      int pool = intValue(values, "pool", 10, 1, 1000);
      List<Subject> subjects = new ArrayList<>();
      for (String name : values.getOrDefault("systems", DEFAULT_SYSTEMS).split(",")) {
        String wanted = name.trim().toLowerCase(Locale.ROOT);
        Subject subject = Arrays.stream(Subject.values()).filter(s -> s.key.equals(wanted)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException(
                "systems: '" + name + "' is not one of " + DEFAULT_SYSTEMS));
        subjects.add(subject);
      }
      Path report = Path.of(values.getOrDefault("report", "benchmarks/target/point-lookups.md"));
      values.keySet().stream().filter(k -> !KNOWN.contains(k)).findFirst().ifPresent(k -> {
            throw new IllegalArgumentException("Unknown setting '" + k + "'; known: " + String.join(", ", KNOWN));
          });
      return new Settings(shards, rows, threads, warmup, duration, rounds, pool, List.copyOf(subjects), report);
    }

    private static int intValue(Map<String, String> values, String name, int dflt, int min, int max) {
      String value = values.get(name);
      return value == null ? dflt : parseInt(name, value, min, max);
    }

    private static int parseInt(String name, String value, int min, int max) {
      int parsed;
      try {
        parsed = Integer.parseInt(value.replace("_", ""));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(name + " must be a whole number, was '" + value + "'");
      }
      if (parsed < min || parsed > max) {
        throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", was " + parsed);
      }
      return parsed;
    }
  }

  public static void main(String[] args) throws Exception {
    Settings settings = Settings.parse(args);
    Workloads.quietLibraries();
    System.out.printf("Point lookups: %d rows, %d shard(s), threads %s, %d round(s) of %d s warm-up + %d s measured"
        + " per system, pools of %d connections, %d CPU(s) visible, Java %s%n", settings.rows(), settings.shards(),
        Arrays.toString(settings.threads()), settings.rounds(), settings.warmup().toSeconds(),
        settings.duration().toSeconds(), settings.pool(), Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));

    List<AutoCloseable> resources = new ArrayList<>();
    try {
      long t0 = System.nanoTime();
      PostgresTopology single = PostgresTopology.builder().shards(1).start();
      resources.add(single);
      PostgresTopology sharded = PostgresTopology.builder().shards(settings.shards()).start();
      resources.add(sharded);
      System.out.printf("PostgreSQL up in %d ms: 1 baseline server, %d shard server(s); %s%n",
          (System.nanoTime() - t0) / 1_000_000, settings.shards(), "PostgreSQL " + Workloads.serverVersion(single.shard(0).primary()));

      List<String> shardIds = new ArrayList<>();
      Shardwise.Builder builder = Shardwise.configure().credentials("postgres", null).entities(Customer.class)
          .property("shardwise.pool.size", Integer.toString(settings.pool()));
      for (PostgresShard shard : sharded.shards()) {
        String id = "shard" + shard.index();
        shardIds.add(id);
        builder.shard(id, shard.primary().jdbcUrl());
      }
      createTable(single.shard(0));
      sharded.shards().forEach(PointLookupWorkload::createTable);

      SessionFactory shardwiseSf = builder.buildSessionFactory();
      resources.add(0, shardwiseSf);
      ShardedSessions shards = ShardedSessions.of(shardwiseSf);
      load(settings.rows(), single, sharded, shardIds, shards);

      Map<Subject, LongFunction<Customer>> lookups = new LinkedHashMap<>();
      Map<Subject, String> unavailable = new LinkedHashMap<>();
      for (Subject subject : settings.subjects()) {
        try {
          lookups.put(subject, switch (subject) {
            case BASELINE -> baseline(single, settings.pool(), resources);
            case SHARDWISE -> id -> shards.forKey(id).fromSession(s -> {
              s.setDefaultReadOnly(true);
              return s.find(Customer.class, id);
            });
            case SHARDINGSPHERE -> shardingSphere(sharded, shardIds, shards, settings, resources);
            case SHARDWISE_ONE -> shardwiseOnOneServer(single, settings.pool(), resources);
            case HAND_ROUTED -> handRouted(sharded, shardIds, shards, settings.pool(), resources);
          });
        } catch (Exception | LinkageError e) {
          String why = describe(e);
          unavailable.put(subject, why);
          System.out.printf("%s could not be set up, skipped: %s%n", subject.label, why);
          e.printStackTrace(System.out);
        }
      }

      // Rounds: every system once per round, in the same order, so that a noisy minute on the
      // shared machine falls on all of them; the report gives each cell's median over the rounds.
      List<LoadResult> results = new ArrayList<>();
      List<Double> loads = new ArrayList<>();
      for (int threads : settings.threads()) {
        for (int round = 1; round <= settings.rounds(); round++) {
          loads.add(Workloads.loadAverage());
          for (Map.Entry<Subject, LongFunction<Customer>> e : lookups.entrySet()) {
            LoadResult r = LoadRunner.run(e.getKey().key, threads, settings.warmup(), settings.duration(),
                settings.rows(), e.getValue());
            results.add(r);
            System.out.printf("  -> round %d, %s, %d thread(s): %,.0f ops/s, p50 %.0f us, p99 %.0f us,"
                    + " client CPU %.1f us/op, %,.0f bytes/op%s%n", round, e.getKey().label, threads, r.opsPerSecond(),
                r.p50Micros(), r.p99Micros(), r.cpuMicrosPerOp(), r.bytesPerOp(),
                r.errors() == 0 ? "" : ", " + r.errors() + " ERRORS (first: " + r.firstError() + ")");
          }
        }
      }
      loads.add(Workloads.loadAverage());

      String table = Report.table(settings, results, loads, unavailable);
      System.out.println();
      System.out.println(table);
      Path report = settings.report();
      if (report.getParent() != null) {
        Files.createDirectories(report.getParent());
      }
      Files.writeString(report, table);
      System.out.println("Table written to " + report.toAbsolutePath());
    } finally {
      for (AutoCloseable resource : resources) {
        try {
          resource.close();
        } catch (Exception e) {
          System.out.println("Could not close " + resource + ": " + e);
        }
      }
      System.out.println("Session factories, pools and PostgreSQL servers stopped.");
    }
  }

  // --- the three systems ------------------------------------------------------------------------

  private static LongFunction<Customer> baseline(PostgresTopology single, int pool, List<AutoCloseable> resources) {
    HikariDataSource ds = pool("baseline", single.shard(0).primary().jdbcUrl(), pool);
    resources.add(0, ds);
    Configuration cfg = new Configuration().addAnnotatedClass(Customer.class);
    cfg.getProperties().put(AvailableSettings.DATASOURCE, ds);
    SessionFactory sf = cfg.buildSessionFactory();
    resources.add(0, sf);
    return id -> {
      try (Session s = sf.openSession()) {
        s.setDefaultReadOnly(true);
        return s.find(Customer.class, id);
      }
    };
  }

  private static LongFunction<Customer> shardwiseOnOneServer(PostgresTopology single, int pool,
      List<AutoCloseable> resources) {
    SessionFactory sf = Shardwise.configure().credentials("postgres", null).entities(Customer.class)
        .property("shardwise.pool.size", Integer.toString(pool))
        .shard("only", single.shard(0).primary().jdbcUrl())
        .buildSessionFactory();
    resources.add(0, sf);
    ShardedSessions one = ShardedSessions.of(sf);
    return id -> one.forKey(id).fromSession(s -> {
      s.setDefaultReadOnly(true);
      return s.find(Customer.class, id);
    });
  }

  private static LongFunction<Customer> handRouted(PostgresTopology sharded, List<String> shardIds,
      ShardedSessions shards, int pool, List<AutoCloseable> resources) {
    Map<String, SessionFactory> factories = new LinkedHashMap<>();
    for (int i = 0; i < shardIds.size(); i++) {
      HikariDataSource ds = pool("hand-" + shardIds.get(i), sharded.shard(i).primary().jdbcUrl(), pool);
      resources.add(0, ds);
      Configuration cfg = new Configuration().addAnnotatedClass(Customer.class);
      cfg.getProperties().put(AvailableSettings.DATASOURCE, ds);
      SessionFactory sf = cfg.buildSessionFactory();
      resources.add(0, sf);
      factories.put(shardIds.get(i), sf);
    }
    return id -> {
      try (Session s = factories.get(shards.shardFor(id)).openSession()) {
        s.setDefaultReadOnly(true);
        return s.find(Customer.class, id);
      }
    };
  }

  private static LongFunction<Customer> shardingSphere(PostgresTopology sharded, List<String> shardIds,
      ShardedSessions shards, Settings settings, List<AutoCloseable> resources) throws SQLException {
    Properties algorithm = new Properties();
    algorithm.setProperty("strategy", "STANDARD");
    algorithm.setProperty("algorithmClassName", ShardwisePlacementAlgorithm.class.getName());
    algorithm.setProperty(ShardwisePlacementAlgorithm.SHARDS, String.join(",", shardIds));

    // Before anything is measured: the algorithm ShardingSphere will use places every key where
    // Shardwise placed it (and so where the row physically is).
    ShardwisePlacementAlgorithm check = new ShardwisePlacementAlgorithm();
    check.init(algorithm);
    for (long id = 1; id <= settings.rows(); id++) {
      if (!check.shardFor(id).equals(shards.shardFor(id))) {
        throw new IllegalStateException("ShardwisePlacementAlgorithm puts key " + id + " on " + check.shardFor(id)
            + " but Shardwise put it on " + shards.shardFor(id));
      }
    }

    Map<String, DataSource> dataSources = new LinkedHashMap<>();
    List<String> nodes = new ArrayList<>();
    for (int i = 0; i < shardIds.size(); i++) {
      HikariDataSource ds = pool("ss-" + shardIds.get(i), sharded.shard(i).primary().jdbcUrl(), settings.pool());
      resources.add(0, ds);
      dataSources.put(shardIds.get(i), ds);
      nodes.add(shardIds.get(i) + ".customer");
    }
    ShardingTableRuleConfiguration table = new ShardingTableRuleConfiguration("customer", String.join(",", nodes));
    table.setDatabaseShardingStrategy(new StandardShardingStrategyConfiguration("id", "shardwise_placement"));
    ShardingRuleConfiguration rule = new ShardingRuleConfiguration();
    rule.getTables().add(table);
    rule.getShardingAlgorithms().put("shardwise_placement", new AlgorithmConfiguration("CLASS_BASED", algorithm));
    DataSource ss = ShardingSphereDataSourceFactory.createDataSource("pointlookup", null, dataSources, List.of(rule),
        new Properties());
    if (ss instanceof AutoCloseable closeable) {
      resources.add(0, closeable);
    }

    Configuration cfg = new Configuration().addAnnotatedClass(Customer.class);
    cfg.getProperties().put(AvailableSettings.DATASOURCE, ss);
    SessionFactory sf = cfg.buildSessionFactory();
    resources.add(0, sf);
    LongFunction<Customer> lookup = id -> {
      try (Session s = sf.openSession()) {
        s.setDefaultReadOnly(true);
        return s.find(Customer.class, id);
      }
    };
    Customer probe = lookup.apply(1L);
    if (probe == null || probe.getId() != 1L) {
      throw new IllegalStateException("Hibernate on ShardingSphere did not find customer 1 (got " + probe + ")");
    }
    return lookup;
  }

  private static HikariDataSource pool(String name, String url, int size) {
    HikariConfig hc = new HikariConfig();
    hc.setPoolName(name);
    hc.setJdbcUrl(url);
    hc.setUsername("postgres");
    hc.setMaximumPoolSize(size);
    hc.setMinimumIdle(Math.min(2, size)); // as Shardwise's own shard pools
    return new HikariDataSource(hc);
  }

  // --- schema and data --------------------------------------------------------------------------

  private static void createTable(PostgresShard server) {
    try (Connection c = server.primary().dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute("drop table if exists customer");
      s.execute(Customer.DDL);
    } catch (SQLException e) {
      throw new IllegalStateException("Could not create the customer table on " + server.primary().name(), e);
    }
  }

  /**
   * COPYs ids 1..rows into the baseline server and, each row on the shard that Shardwise routes its
   * id to, into the shards; then checks the counts, vacuums, analyzes and checkpoints everywhere.
   */
  private static void load(int rows, PostgresTopology single, PostgresTopology sharded, List<String> shardIds,
      ShardedSessions shards) throws SQLException, IOException {
    long t0 = System.nanoTime();
    List<Connection> connections = new ArrayList<>();
    try {
      Connection baseline = single.shard(0).primary().dataSource().getConnection();
      connections.add(baseline);
      Map<String, Connection> shardConnections = new LinkedHashMap<>();
      for (int i = 0; i < shardIds.size(); i++) {
        Connection c = sharded.shard(i).primary().dataSource().getConnection();
        connections.add(c);
        shardConnections.put(shardIds.get(i), c);
      }
      Map<String, Long> perShard = new LinkedHashMap<>();
      shardIds.forEach(id -> perShard.put(id, 0L));
      for (int start = 1; start <= rows; start += LOAD_CHUNK) {
        int end = Math.min(rows, start + LOAD_CHUNK - 1);
        StringBuilder all = new StringBuilder();
        Map<String, StringBuilder> byShard = new LinkedHashMap<>();
        shardIds.forEach(id -> byShard.put(id, new StringBuilder()));
        for (long id = start; id <= end; id++) {
          String line = id + ",customer-" + id + ",c" + id + "@example.com," + COUNTRIES[(int) (id % COUNTRIES.length)]
              + "," + (id * 7919 % 1_000_000) + "\n";
          all.append(line);
          String shard = shards.shardFor(id);
          byShard.get(shard).append(line);
          perShard.merge(shard, 1L, Long::sum);
        }
        copy(baseline, all);
        for (Map.Entry<String, StringBuilder> e : byShard.entrySet()) {
          copy(shardConnections.get(e.getKey()), e.getValue());
        }
        System.out.printf("Loading: %,d / %,d rows (baseline server and shards: %s)%n", end, rows, perShard);
      }
      expectCount(baseline, "baseline", rows);
      for (Map.Entry<String, Connection> e : shardConnections.entrySet()) {
        expectCount(e.getValue(), e.getKey(), perShard.get(e.getKey()));
      }
      // Settle every server before measuring: statistics, visibility map, and the bulk load's dirty
      // pages written out now rather than by a checkpoint in the middle of someone's measurement.
      for (Connection c : connections) {
        try (Statement s = c.createStatement()) {
          s.execute("vacuum analyze customer");
          s.execute("checkpoint");
        }
      }
      System.out.printf("Loaded and checked in %d ms: baseline %,d rows; %s%n", (System.nanoTime() - t0) / 1_000_000,
          rows, perShard);
    } finally {
      for (Connection c : connections) {
        c.close();
      }
    }
  }

  private static void copy(Connection c, CharSequence csv) throws SQLException, IOException {
    if (csv.length() > 0) {
      c.unwrap(PGConnection.class).getCopyAPI().copyIn("copy customer from stdin with (format csv)",
          new StringReader(csv.toString()));
    }
  }

  private static void expectCount(Connection c, String where, long expected) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select count(*) from customer")) {
      rs.next();
      if (rs.getLong(1) != expected) {
        throw new IllegalStateException(where + " holds " + rs.getLong(1) + " customers, expected " + expected);
      }
    }
  }

  // --- output -----------------------------------------------------------------------------------

  private static String describe(Throwable e) {
    StringBuilder sb = new StringBuilder(e.toString());
    for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
      sb.append(" <- ").append(cause);
    }
    return sb.toString();
  }


  /**
   * The Markdown table, with the setup it was measured on: per thread count and system, the median
   * over the rounds of throughput, latency percentiles and client CPU per operation, and the CPU per
   * operation as a multiple of the baseline's median. CPU per operation is the number to compare on
   * a shared machine: ops/s moves with whatever else runs, the work the client does per lookup does not.
   */
  static final class Report {
    private Report() {}

    static String table(Settings settings, List<LoadResult> results, List<Double> loads,
        Map<Subject, String> unavailable) {
      StringBuilder sb = new StringBuilder();
      sb.append(String.format(Locale.ROOT, "Measured %s: %,d rows, %d shard(s), %d round(s) of %d s warm-up + %d s"
              + " measured per system (systems alternating within each round), pools of %d, %d CPU(s) visible to"
              + " the JVM, Java %s, 1-minute load average %.1f–%.1f at the rounds' starts. Medians over the rounds;"
              + " client CPU and allocated bytes are the worker threads' (ThreadMXBean) over the measured"
              + " operations.%n%n",
          LocalDate.now(), settings.rows(), settings.shards(), settings.rounds(), settings.warmup().toSeconds(),
          settings.duration().toSeconds(), settings.pool(), Runtime.getRuntime().availableProcessors(),
          System.getProperty("java.version"), loads.stream().mapToDouble(Double::doubleValue).min().orElse(0),
          loads.stream().mapToDouble(Double::doubleValue).max().orElse(0)));
      sb.append("| threads | system | ops/s | p50 µs | p99 µs | × baseline ops/s | client CPU µs/op (min–max)"
          + " | × baseline CPU/op | bytes/op | × baseline bytes/op | errors |\n");
      sb.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
      for (int threads : settings.threads()) {
        Map<String, List<LoadResult>> cells = new LinkedHashMap<>();
        results.stream().filter(r -> r.threads() == threads)
            .forEach(r -> cells.computeIfAbsent(r.subject(), k -> new ArrayList<>()).add(r));
        List<LoadResult> base = cells.get(Subject.BASELINE.key);
        double baseOps = base == null ? Double.NaN : Workloads.median(base, LoadResult::opsPerSecond);
        double baseCpu = base == null ? Double.NaN : Workloads.median(base, LoadResult::cpuMicrosPerOp);
        double baseBytes = base == null ? Double.NaN : Workloads.median(base, LoadResult::bytesPerOp);
        for (Map.Entry<String, List<LoadResult>> cell : cells.entrySet()) {
          List<LoadResult> rounds = cell.getValue();
          double ops = Workloads.median(rounds, LoadResult::opsPerSecond);
          double cpu = Workloads.median(rounds, LoadResult::cpuMicrosPerOp);
          double bytes = Workloads.median(rounds, LoadResult::bytesPerOp);
          sb.append(String.format(Locale.ROOT,
              "| %d | %s | %,.0f | %.0f | %.0f | %s | %.1f (%.1f–%.1f) | %s | %,.0f | %s | %d |%n",
              threads, cell.getKey(), ops, Workloads.median(rounds, LoadResult::p50Micros),
              Workloads.median(rounds, LoadResult::p99Micros), ratio(ops, baseOps), cpu,
              rounds.stream().mapToDouble(LoadResult::cpuMicrosPerOp).min().orElse(0),
              rounds.stream().mapToDouble(LoadResult::cpuMicrosPerOp).max().orElse(0), ratio(cpu, baseCpu),
              bytes, ratio(bytes, baseBytes), rounds.stream().mapToLong(LoadResult::errors).sum()));
        }
      }
      unavailable.forEach((subject, why) -> sb.append(String.format("%n%s was not measured: %s%n", subject.key, why)));
      return sb.toString();
    }

    private static String ratio(double value, double base) {
      return Double.isNaN(base) || base == 0 ? "–" : String.format(Locale.ROOT, "%.2f", value / base);
    }
  }
}
