package io.shardwise.benchmarks;

import static io.shardwise.benchmarks.Workloads.percentile;

import io.shardwise.hibernate.Shardwise;
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
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.testkit.PostgresTopology;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * An online move measured end to end, in one run on one 2-shard testkit topology: shard s0 holds
 * every bucket and {@code rows} rows of {@code bench_order}; a third of the buckets moves to a new
 * shard s1 while writer threads update and insert rows of random tenants (routed by the shard map,
 * refreshing it and retrying when a fence refuses them, as the runtime does).
 *
 * <ul>
 *   <li><b>copy rate</b> of the move's logical-replication copy, against a plain
 *       {@code COPY (SELECT ... moving buckets) TO STDOUT} piped into {@code COPY ... FROM STDIN} of
 *       the same rows between the same servers, run first in the same run;</li>
 *   <li><b>writer latency during the write switch</b>: p50 / p99 / max of the writes to moving
 *       buckets in the second around the switch, and the pause the mover measured; the naive move
 *       (stop writes, copy, switch) would pause those writes at least as long as the plain COPY took;</li>
 *   <li>a chart of every write's latency over the whole workflow, phases marked
 *       ({@code docs/resharding-latency.png}).</li>
 * </ul>
 *
 * <pre>
 * mvn -B -q -pl benchmarks -am package -DskipTests
 * java -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.ReshardingWorkload rows=1000000 writers=4
 * </pre>
 *
 * Options: {@code rows=1000000}, {@code tenants=20000}, {@code writers=4}, {@code rate=400} (writes
 * per second per writer), {@code docs=docs/benchmarks.md} ({@code none} leaves the docs alone);
 * diagnostics: {@code timeline=1} prints the subscription's table states, workers and slots whenever
 * they change (polled every 5 ms) and the CPU the table-sync processes used (from {@code /proc}: the
 * servers run on this machine); {@code variants=1} times the plain COPY pipe, with the target
 * backend's CPU, into tables with what the move's target table has (a second unique index, a
 * {@code BEFORE} row trigger, both), under {@code session_replication_role = replica} as a
 * table-sync worker runs.
 */
public final class ReshardingWorkload {
  static final String SECTION = "## Resharding";
  static final String BEGIN = "<!-- ReshardingWorkload:begin (generated; rerun the workload to replace) -->";
  static final String END = "<!-- ReshardingWorkload:end -->";
  static final String DDL = "CREATE TABLE bench_order (id bigint PRIMARY KEY, tenant_id bigint NOT NULL, amount numeric(12,2) NOT NULL, "
      + "note text, created timestamptz NOT NULL DEFAULT now())";

  record Write(long startNanos, long latencyNanos, boolean moving, int retries, long refreshNanos) {}

  public static void main(String[] args) throws Exception {
    Map<String, String> options = new HashMap<>();
    for (String a : args) {
      String[] kv = a.split("=", 2);
      options.put(kv[0], kv[1]);
    }
    int rows = Integer.parseInt(options.getOrDefault("rows", "1000000"));
    int tenants = Integer.parseInt(options.getOrDefault("tenants", "20000"));
    int writers = Integer.parseInt(options.getOrDefault("writers", "4"));
    int rate = Integer.parseInt(options.getOrDefault("rate", "400"));
    String docs = options.getOrDefault("docs", "docs/benchmarks.md");
    System.setProperty("java.awt.headless", "true");

    try (PostgresTopology pg = PostgresTopology.builder().shards(2).start()) {
      String s0 = pg.shard(0).primary().jdbcUrl();
      String s1 = pg.shard(1).primary().jdbcUrl();
      exec(s0, "CREATE DATABASE control");
      String control = pg.shard(0).primary().jdbcUrl("control");
      exec(s0, DDL);
      exec(s0, "INSERT INTO bench_order (id, tenant_id, amount, note) SELECT g, g % " + tenants + ", (g % 1000) / 10.0, "
          + "'order note ' || md5(g::text) FROM generate_series(1, " + rows + ") g", "VACUUM ANALYZE bench_order");
      ControlDatabase db = new ControlDatabase(control, "postgres", null);
      db.createSchema();
      db.initialize(ShardMap.evenlyAssigned(1, List.of(ShardDescriptor.of("s0", s0)), 1024));
      TreeSet<Integer> moving = new TreeSet<>();
      for (int b = 0; b < 1024 / 3; b++) {
        moving.add(b);
      }
      String filter = BucketStrategy.sqlBucket(ShardKeyType.LONG, "tenant_id", 1024) + " < " + 1024 / 3;

      // baseline: plain COPY ... TO STDOUT | COPY ... FROM STDIN of the same rows, same servers
      exec(s1, DDL.replace("bench_order", "bench_order_copy"));
      long copyRows;
      long t0 = System.nanoTime();
      try (Connection a = DriverManager.getConnection(s0, "postgres", null);
          Connection b = DriverManager.getConnection(s1, "postgres", null)) {
        copyRows = pipe(a, "SELECT id, tenant_id, amount, note, created FROM bench_order WHERE " + filter, b,
            "bench_order_copy (id, tenant_id, amount, note, created)");
      }
      double plainSeconds = (System.nanoTime() - t0) / 1e9;
      long movingBytes = Long.parseLong(query(s1, "SELECT pg_table_size('bench_order_copy')"));
      exec(s1, "DROP TABLE bench_order_copy");
      System.out.printf(Locale.ROOT, "plain COPY pipe: %,d rows in %.2f s%n", copyRows, plainSeconds);

      if (options.containsKey("variants")) {
        String[][] variants = {
            {"plain"},
            {"ri-index", "CREATE UNIQUE INDEX ON bench_order_copy (id, tenant_id)"},
            {"trigger-replica", "CREATE FUNCTION f_x() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$",
                "CREATE TRIGGER t_x BEFORE INSERT OR UPDATE OR DELETE ON bench_order_copy FOR EACH ROW EXECUTE FUNCTION f_x()"},
            {"both", "CREATE UNIQUE INDEX ON bench_order_copy (id, tenant_id)",
                "CREATE FUNCTION f_x() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NEW; END$$",
                "CREATE TRIGGER t_x BEFORE INSERT OR UPDATE OR DELETE ON bench_order_copy FOR EACH ROW EXECUTE FUNCTION f_x()"},
            {"plain"}};
        for (int round = 0; round < 2; round++) {
          for (String[] v : variants) {
            exec(s1, DDL.replace("bench_order", "bench_order_copy"));
            for (int i = 1; i < v.length; i++) {
              exec(s1, v[i]);
            }
            long v0 = System.nanoTime();
            try (Connection a = DriverManager.getConnection(s0, "postgres", null);
                Connection b = DriverManager.getConnection(s1, "postgres", null)) {
              exec(b, "SET session_replication_role = replica");
              long pa = pid(a);
              long pb = pid(b);
              long ca = cpuTicks(pa);
              long cb = cpuTicks(pb);
              pipe(a, "SELECT id, tenant_id, amount, note, created FROM bench_order WHERE " + filter, b,
                  "bench_order_copy (id, tenant_id, amount, note, created)");
              System.out.printf(Locale.ROOT, "variant %s: %.2f s, cpu ticks source %d target %d%n", v[0],
                  (System.nanoTime() - v0) / 1e9, cpuTicks(pa) - ca, cpuTicks(pb) - cb);
            }
            exec(s1, "DROP TABLE bench_order_copy", "DROP FUNCTION IF EXISTS f_x()");
          }
        }
      }

      // writers, routed by the shard map
      ControlDatabaseShardMapSource maps = ControlDatabaseShardMapSource.builder(db).start();
      ConcurrentLinkedQueue<Write> log = new ConcurrentLinkedQueue<>();
      AtomicBoolean stop = new AtomicBoolean();
      long origin = System.nanoTime();
      List<Thread> threads = new ArrayList<>();
      Map<String, String> urls = new ConcurrentHashMap<>(Map.of("s0", s0, "s1", s1));
      for (int w = 0; w < writers; w++) {
        int seed = w;
        Thread t = new Thread(() -> write(maps, urls, tenants, rows, seed, rate, stop, log), "writer-" + w);
        t.start();
        threads.add(t);
      }
      Resharding moves = Shardwise.resharding(Map.of("shardwise.control.url", control, "shardwise.user", "postgres",
          "shardwise.reshard.fence_grace_ms", "0"));
      Map<String, Long> marks = new ConcurrentHashMap<>();
      marks.put("start", System.nanoTime());
      Thread probe = new Thread(() -> timeline(s0, s1, marks.get("start"), stop), "timeline");
      if (options.containsKey("timeline")) {
        probe.start();
      }
      ReshardWorkflow w = moves.start(new ReshardRequest("s0", "s1", moving,
          List.of(ReshardTable.sharded("bench_order", "tenant_id", ShardKeyType.LONG)), ShardDescriptor.of("s1", s1)),
          p -> {
            marks.putIfAbsent("step " + p.step(), System.nanoTime());
            if (options.containsKey("timeline")) {
              System.out.printf(Locale.ROOT, "progress %7.1f ms %s %d/%d%n", (System.nanoTime() - marks.get("start")) / 1e6,
                  p.step(), p.done(), p.total());
            }
            if (p.step().equals("copy") && p.total() > 0 && p.done() >= p.total()) {
              marks.putIfAbsent("copied", System.nanoTime());
            }
            if (p.message() != null) {
              System.out.println(p.message());
            }
          });
      if (w.phase() != ReshardPhase.VERIFIED) {
        throw new IllegalStateException("move not verified: " + w.lastError());
      }
      marks.put("reads", System.nanoTime());
      moves.switchReads(w.id());
      Thread.sleep(1000);
      marks.put("switch", System.nanoTime());
      SwitchResult result = moves.switchWrites(w.id());
      List<SwitchResult> abandoned = new ArrayList<>();
      while (!result.switched() && abandoned.size() < 10) {   // as an operator would: switch-writes again
        System.out.println(result.describe());
        abandoned.add(result);
        result = moves.switchWrites(w.id());
      }
      marks.put("switched", System.nanoTime());
      System.out.println(result.describe());
      Thread.sleep(2000);
      stop.set(true);
      for (Thread t : threads) {
        t.join();
      }
      marks.put("complete", System.nanoTime());
      moves.complete(w.id(), p -> { });
      maps.close();

      long copyStart = marks.get("step copy");
      long copyEnd = marks.getOrDefault("copied", marks.get("step catch-up"));
      double moveCopySeconds = (copyEnd - copyStart) / 1e9;
      long switchFrom = marks.get("switch") - 500_000_000L;
      long switchTo = marks.get("switched") + 500_000_000L;
      long[] around = log.stream().filter(x -> x.moving() && x.startNanos() >= switchFrom && x.startNanos() <= switchTo)
          .mapToLong(Write::latencyNanos).sorted().toArray();
      long[] steady = log.stream().filter(x -> x.moving() && x.startNanos() < marks.get("start"))
          .mapToLong(Write::latencyNanos).sorted().toArray();
      long[] refused = log.stream().filter(x -> x.retries() > 0).mapToLong(Write::latencyNanos).sorted().toArray();
      long refreshes = log.stream().filter(x -> x.refreshNanos() > 0).count();
      long maxRefresh = log.stream().mapToLong(Write::refreshNanos).max().orElse(0);
      String report = report(rows, copyRows, movingBytes, plainSeconds, moveCopySeconds, result, around, steady,
          writers, rate, log.size(), refused, refreshes, maxRefresh, abandoned);
      System.out.println(report);
      chart(log, marks, origin, Path.of("docs/resharding-latency.png"));
      if (!docs.equals("none")) {
        Workloads.writeSection(Path.of(docs), SECTION, BEGIN, END, "Online moves (docs/resharding.md), measured by"
            + " `ReshardingWorkload`.\n", BEGIN + "\n\n" + report + "\n" + END + "\n");
      }
    }
  }

  private static void write(ControlDatabaseShardMapSource maps, Map<String, String> urls, int tenants, int rows,
      int seed, int rate, AtomicBoolean stop, ConcurrentLinkedQueue<Write> log) {
    SplittableRandom random = new SplittableRandom(seed);
    Map<String, Connection> connections = new HashMap<>();
    long intervalNanos = 1_000_000_000L / rate;
    long next = System.nanoTime();
    long nextId = rows + 1 + seed * 100_000_000L;
    urls.forEach((shard, url) -> connections.put(shard, open(url)));   // warm, as a pool would be
    try {
      while (!stop.get()) {
        long tenant = random.nextInt(tenants);
        boolean insert = random.nextInt(4) == 0;
        long id = insert ? nextId++ : tenant + (long) tenants * random.nextInt(Math.max(1, rows / tenants - 1)) ;
        long start = System.nanoTime();
        int retries = 0;
        long refreshNanos = 0;
        while (true) {
          ShardMap map = maps.current();
          String shard = map.ownerOf(BucketStrategy.bucketOf(PgHash.hashLong(tenant), map.bucketCount()));
          try {
            Connection c = connections.computeIfAbsent(shard, s -> open(urls.get(s)));
            try (PreparedStatement ps = c.prepareStatement(insert
                ? "INSERT INTO bench_order (id, tenant_id, amount, note) VALUES (?, ?, 1, 'new')"
                : "UPDATE bench_order SET amount = amount + 1 WHERE id = ? AND tenant_id = ?")) {
              ps.setLong(1, id);
              ps.setLong(2, tenant);
              ps.executeUpdate();
            }
            break;
          } catch (SQLException e) {
            if (!BucketMovedException.SQLSTATE_MOVED.equals(e.getSQLState())
                && !BucketMovedException.SQLSTATE_FROZEN.equals(e.getSQLState())) {
              throw new IllegalStateException(e);
            }
            retries++;
            long version = movedVersion(e);
            if (version < 0 || maps.current().version() < version) {
              long r0 = System.nanoTime();
              maps.refresh(version);   // as the runtime does: waits briefly for the notification, else loads
              refreshNanos += System.nanoTime() - r0;
            }
          }
        }
        long end = System.nanoTime();
        int bucket = BucketStrategy.bucketOf(PgHash.hashLong(tenant), 1024);
        log.add(new Write(start, end - start, bucket < 1024 / 3, retries, refreshNanos));
        next += intervalNanos;
        long sleep = next - System.nanoTime();
        if (sleep > 0) {
          java.util.concurrent.locks.LockSupport.parkNanos(sleep);
        }
      }
    } finally {
      connections.values().forEach(c -> {
        try {
          c.close();
        } catch (SQLException ignored) {
          // closing
        }
      });
    }
  }

  /** {@code COPY (select) TO STDOUT} on one server into {@code COPY table FROM STDIN} on the other, binary. */
  private static long pipe(Connection source, String select, Connection target, String table) throws SQLException {
    org.postgresql.copy.CopyOut out = source.unwrap(org.postgresql.PGConnection.class).getCopyAPI()
        .copyOut("COPY (" + select + ") TO STDOUT (FORMAT binary)");
    org.postgresql.copy.CopyIn in = target.unwrap(org.postgresql.PGConnection.class).getCopyAPI()
        .copyIn("COPY " + table + " FROM STDIN (FORMAT binary)");
    byte[] chunk;
    while ((chunk = out.readFromCopy()) != null) {
      in.writeToCopy(chunk, 0, chunk.length);
    }
    return in.endCopy();
  }

  /** The map version a fence names in its DETAIL ({@code bucket=.. owner=.. version=..}), or -1. */
  private static long movedVersion(SQLException e) {
    if (e instanceof org.postgresql.util.PSQLException p && p.getServerErrorMessage() != null
        && p.getServerErrorMessage().getDetail() != null) {
      for (String part : p.getServerErrorMessage().getDetail().split(" ")) {
        if (part.startsWith("version=")) {
          return Long.parseLong(part.substring("version=".length()));
        }
      }
    }
    return -1;
  }

  private static Connection open(String url) {
    try {
      return DriverManager.getConnection(url, "postgres", null);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  static String report(int rows, long copyRows, long bytes, double plainSeconds, double moveSeconds, SwitchResult r,
      long[] around, long[] steady, int writers, int rate, int writes, long[] refused, long refreshes, long maxRefresh,
      List<SwitchResult> abandoned) {
    double mb = bytes / 1e6;
    StringBuilder out = new StringBuilder();
    String load;
    try {
      load = Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    } catch (IOException e) {
      load = "unknown";
    }
    out.append(String.format(Locale.ROOT, "One run, %s, load average %s on 2 cores (other builds running), 2 shards on"
        + " this machine (testkit, PostgreSQL 17, fsync off); "
        + "`bench_order` with %,d rows on s0, a third of the buckets (%,d rows, %.1f MB) moved to a new shard s1 while "
        + "%d writers each ran %d single-row writes/s (3 updates : 1 insert) on random tenants.%n%n", LocalDate.now(),
        load, rows, copyRows, mb, writers, rate));
    out.append("| copy of the moving rows | seconds | rows/s | MB/s | ratio |\n|---|---:|---:|---:|---:|\n");
    out.append(String.format(Locale.ROOT, "| plain `COPY ... TO STDOUT` piped into `COPY ... FROM STDIN` (baseline) | %.2f | %,.0f | %.1f | 1.00 |%n",
        plainSeconds, copyRows / plainSeconds, mb / plainSeconds));
    out.append(String.format(Locale.ROOT, "| the move's copy (filtered publication + subscription, binary) | %.2f | %,.0f | %.1f | %.2f |%n%n",
        moveSeconds, copyRows / moveSeconds, mb / moveSeconds, plainSeconds / moveSeconds));
    out.append("| writes to moving buckets | n | p50 ms | p99 ms | max ms |\n|---|---:|---:|---:|---:|\n");
    out.append(String.format(Locale.ROOT, "| before the move (steady) | %d | %.2f | %.2f | %.2f |%n", steady.length,
        percentile(steady, 0.5) / 1e6, percentile(steady, 0.99) / 1e6, steady.length == 0 ? 0 : steady[steady.length - 1] / 1e6));
    out.append(String.format(Locale.ROOT, "| within 0.5 s of the write switch | %d | %.2f | %.2f | %.2f |%n", around.length,
        percentile(around, 0.5) / 1e6, percentile(around, 0.99) / 1e6, around.length == 0 ? 0 : around[around.length - 1] / 1e6));
    out.append(String.format(Locale.ROOT, "| of which refused by a fence and retried on the new owner | %d | %.2f | %.2f"
        + " | %.2f |%n%n", refused.length, percentile(refused, 0.5) / 1e6, percentile(refused, 0.99) / 1e6,
        refused.length == 0 ? 0 : refused[refused.length - 1] / 1e6));
    for (SwitchResult a : abandoned) {
      out.append("An earlier attempt: ").append(a.describe()).append("\n\n");
    }
    out.append(String.format(Locale.ROOT, "The mover's own measure: %s. %,d writes in all; %d refused writes had to "
        + "wait for the new map (the others had it from the notification already), the longest %.1f ms. A naive move of the same buckets (stop their writes, copy, switch) pauses them at "
        + "least as long as the plain COPY above: %.0f ms.%n%n", r.describe(), writes, refreshes, maxRefresh / 1e6,
        plainSeconds * 1000));
    out.append("![Writer latency over the whole move](resharding-latency.png)\n");
    return out.toString();
  }

  private static void chart(ConcurrentLinkedQueue<Write> log, Map<String, Long> marks, long origin, Path file)
      throws IOException {
    XYSeries moving = new XYSeries("writes to moving buckets");
    XYSeries staying = new XYSeries("writes to other buckets");
    for (Write w : log) {
      (w.moving() ? moving : staying).add((w.startNanos() - origin) / 1e9, w.latencyNanos() / 1e6);
    }
    XYSeriesCollection data = new XYSeriesCollection();
    data.addSeries(moving);
    data.addSeries(staying);
    JFreeChart chart = ChartFactory.createScatterPlot("Writer latency during an online move", "seconds",
        "latency (ms)", data);
    XYPlot plot = chart.getXYPlot();
    plot.setBackgroundPaint(Color.WHITE);
    XYLineAndShapeRenderer renderer = (XYLineAndShapeRenderer) plot.getRenderer();
    renderer.setSeriesShape(0, new java.awt.geom.Ellipse2D.Double(-1.5, -1.5, 3, 3));
    renderer.setSeriesShape(1, new java.awt.geom.Ellipse2D.Double(-1, -1, 2, 2));
    renderer.setSeriesPaint(0, new Color(200, 40, 40));
    renderer.setSeriesPaint(1, new Color(60, 90, 200, 120));
    for (String[] mark : new String[][] {{"start", "setup"}, {"step copy", "copy"}, {"step catch-up", "catch-up"},
        {"step verify", "verify"}, {"reads", "switch reads"}, {"switch", "switch writes"}, {"complete", "complete"}}) {
      Long at = marks.get(mark[0]);
      if (at != null) {
        ValueMarker m = new ValueMarker((at - origin) / 1e9, Color.DARK_GRAY, new BasicStroke(1f));
        m.setLabel(mark[1]);
        m.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
        m.setLabelTextAnchor(TextAnchor.TOP_LEFT);
        plot.addDomainMarker(m);
      }
    }
    Files.createDirectories(file.toAbsolutePath().getParent());
    ChartUtils.saveChartAsPNG(new File(file.toString()), chart, 1000, 500);
  }

  /** Prints, with ms since the move started, every change of the subscription's workers and table states. */
  private static void timeline(String s0, String s1, long start, AtomicBoolean stop) {
    Map<String, Long> syncCpu = new java.util.TreeMap<>();
    try (Connection a = DriverManager.getConnection(s0, "postgres", null);
        Connection b = DriverManager.getConnection(s1, "postgres", null);
        Statement sa = a.createStatement(); Statement sb = b.createStatement()) {
      String last = "";
      while (!stop.get()) {
        StringBuilder now = new StringBuilder();
        try (var rs = sa.executeQuery("SELECT string_agg(slot_name || ':' || active, ',' ORDER BY slot_name) FROM "
            + "pg_replication_slots")) {
          rs.next();
          now.append("slots=").append(rs.getString(1));
        }
        try (var rs = sb.executeQuery("SELECT (SELECT string_agg(srsubstate::text, ',') FROM pg_subscription_rel), "
            + "(SELECT string_agg(coalesce(relid::regclass::text, 'apply'), ',') FROM pg_stat_subscription "
            + "WHERE pid IS NOT NULL), (SELECT max(tuples_processed) / 50000 FROM pg_stat_progress_copy)")) {
          rs.next();
          now.append(" rel=").append(rs.getString(1)).append(" workers=").append(rs.getString(2))
              .append(" copied50k=").append(rs.getString(3));
        }
        try (var rs = sb.executeQuery("SELECT pid FROM pg_stat_subscription WHERE relid IS NOT NULL AND pid IS NOT NULL")) {
          while (rs.next()) {
            long t = cpuTicks(rs.getLong(1));
            if (t >= 0) {
              syncCpu.put("target sync worker " + rs.getLong(1), t);
            }
          }
        }
        try (var rs = sa.executeQuery("SELECT active_pid FROM pg_replication_slots WHERE slot_name LIKE 'pg%sync%' "
            + "AND active_pid IS NOT NULL")) {
          while (rs.next()) {
            long t = cpuTicks(rs.getLong(1));
            if (t >= 0) {
              syncCpu.put("source sync walsender " + rs.getLong(1), t);
            }
          }
        }
        if (!now.toString().equals(last)) {
          System.out.printf(Locale.ROOT, "timeline %7.1f ms %s%n", (System.nanoTime() - start) / 1e6, now);
          last = now.toString();
        }
        Thread.sleep(5);
      }
    } catch (SQLException | InterruptedException e) {
      System.out.println("timeline stopped: " + e);
    }
    System.out.println("timeline cpu ticks (last seen): " + syncCpu);
  }

  /** utime + stime of a local process in clock ticks, or -1. */
  static long cpuTicks(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  static long pid(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); var rs = s.executeQuery("SELECT pg_backend_pid()")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static void exec(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static void exec(String url, String... sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement s = c.createStatement()) {
      for (String q : sql) {
        s.execute(q);
      }
    }
  }

  private static String query(String url, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement s = c.createStatement();
        var rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
