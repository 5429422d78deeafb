package io.shardwise.hibernate.resharding.internal;

import io.shardwise.hibernate.resharding.ReshardTable;
import io.shardwise.hibernate.resharding.ReshardWorkflow;
import io.shardwise.hibernate.resharding.VerificationReport;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * Compares the moving buckets of every table on source and target while writes go on.
 *
 * <h2>A consistent point without stopping writes</h2>
 *
 * <p>Per table, one query on each side aggregates the moving rows by bucket: the count and the sum
 * of a 64-bit hash of the row's text (every column, in the source's column order, under fixed
 * output settings), which does not depend on row order. The source is read first; then a marker row
 * is written on the source and the target is read once it has applied the marker, so the target has
 * everything the source read, plus whatever was written since. Buckets equal on both sides are
 * done. For the others, the rows (primary key and hash) of those buckets are compared, and every key
 * that differs is re-checked: read on the source, marker, read on the target, read on the source
 * again. A key whose source row did not change between the two source reads and differs on the
 * target is a real difference; one that changed is re-checked (up to five rounds), then reported as
 * still changing. So a difference is only ever reported for a row that stood still.
 *
 * <p>Tables run in parallel (bounded by {@code shardwise.reshard.verify_threads}); results are
 * recorded per (table, bucket) in the control database.
 */
final class Verifier {
  private static final String[] SESSION = {"SET TIME ZONE 'UTC'", "SET DateStyle = ISO, YMD",
      "SET extra_float_digits = 3", "SET bytea_output = 'hex'", "SET IntervalStyle = 'postgres'"};
  private static final int ROUNDS = 5;
  private static final int KEYS_LISTED = 100;

  /** Opens a connection to a shard of the move, with the verification's session settings. */
  interface Connections {
    Connection source() throws SQLException;

    Connection target() throws SQLException;

    /** Writes a marker on the source and waits until the target has applied it. */
    void catchUp(Connection source, Connection target) throws SQLException;
  }

  private final ReshardWorkflow workflow;
  private final int bucketCount;
  private final int threads;
  private final Connections connections;
  private final WorkflowStore store;

  Verifier(ReshardWorkflow workflow, int bucketCount, int threads, Connections connections, WorkflowStore store) {
    this.workflow = workflow;
    this.bucketCount = bucketCount;
    this.threads = threads;
    this.connections = connections;
    this.store = store;
  }

  VerificationReport run(LongConsumer bucketsDone) throws SQLException {
    store.clearChecks(workflow.id());
    List<ReshardTable> tables = workflow.tables();
    ExecutorService pool = Executors.newFixedThreadPool(Math.min(threads, tables.size()), r -> {
      Thread t = new Thread(r, "shardwise-verify-" + workflow.id());
      t.setDaemon(true);
      return t;
    });
    AtomicLong done = new AtomicLong();
    AtomicLong rows = new AtomicLong();
    List<Future<TableResult>> futures = new ArrayList<>();
    for (ReshardTable table : tables) {
      futures.add(pool.submit(() -> {
        TableResult r = table.isReference() ? reference(table) : sharded(table);
        rows.addAndGet(r.rows);
        bucketsDone.accept(done.addAndGet(table.isReference() ? 1 : workflow.buckets().size()));
        return r;
      }));
    }
    List<VerificationReport.Difference> differences = new ArrayList<>();
    List<VerificationReport.Difference> unsettled = new ArrayList<>();
    long compared = 0;
    try {
      for (Future<TableResult> f : futures) {
        TableResult r = f.get();
        differences.addAll(r.differences);
        unsettled.addAll(r.unsettled);
        compared += r.pairs;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("verification interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof SQLException sql) {
        throw sql;
      }
      throw new SQLException("verification failed: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
    return new VerificationReport(workflow.id(), tables.size(), compared, rows.get(), differences, unsettled);
  }

  private record TableResult(long pairs, long rows, List<VerificationReport.Difference> differences,
      List<VerificationReport.Difference> unsettled) {}

  private record Aggregate(long count, BigDecimal sum) {}

  private TableResult reference(ReshardTable table) throws SQLException {
    try (Connection s = prepared(connections.source()); Connection t = prepared(connections.target())) {
      String rowHash = rowHash(s, table.name());
      String sql = "SELECT count(*), coalesce(sum(" + rowHash + "), 0) FROM " + Sql.table(table.name()) + " r";
      Aggregate a = whole(s, sql);
      Aggregate b = whole(t, sql);
      if (!a.equals(b)) {
        RowCopy.syncReference(s, t, table.name());
        a = whole(s, sql);
        b = whole(t, sql);
      }
      boolean equal = a.equals(b);
      List<Object[]> rows = new ArrayList<>();
      rows.add(new Object[] {-1, equal ? "equal" : "different", a.count(), equal ? null
          : "source " + a.count() + " rows, target " + b.count()});
      store.recordChecks(workflow.id(), table.name(), rows);
      List<VerificationReport.Difference> diff = equal ? List.of() : List.of(new VerificationReport.Difference(
          table.name(), -1, Math.abs(a.count() - b.count()), List.of("reference table differs after a re-copy")));
      return new TableResult(1, a.count(), diff, List.of());
    }
  }

  private static Aggregate whole(Connection c, String sql) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
      rs.next();
      return new Aggregate(rs.getLong(1), rs.getBigDecimal(2).stripTrailingZeros());
    }
  }

  private TableResult sharded(ReshardTable table) throws SQLException {
    try (Connection s = prepared(connections.source()); Connection t = prepared(connections.target())) {
      String rowHash = rowHash(s, table.name());
      String bucket = Sql.bucketOf(table, "r.", bucketCount);
      String sql = "SELECT " + bucket + " AS b, count(*), coalesce(sum(" + rowHash + "), 0) FROM "
          + Sql.table(table.name()) + " r WHERE " + Sql.inBuckets(table, workflow.buckets(), bucketCount).replace(
              Sql.ident(table.keyColumn()), "r." + Sql.ident(table.keyColumn())) + " GROUP BY 1";
      Map<Integer, Aggregate> source = aggregates(s, sql);
      connections.catchUp(s, t);
      Map<Integer, Aggregate> target = aggregates(t, sql);
      Set<Integer> differing = new TreeSet<>();
      for (int b : workflow.buckets()) {
        if (!Objects.equals(source.get(b), target.get(b))) {
          differing.add(b);
        }
      }
      long rows = source.values().stream().mapToLong(Aggregate::count).sum();
      Map<Integer, Object[]> results = new TreeMap<>();
      for (int b : workflow.buckets()) {
        Aggregate a = source.get(b);
        results.put(b, new Object[] {b, "equal", a == null ? 0L : a.count(), null});
      }
      List<VerificationReport.Difference> differences = new ArrayList<>();
      List<VerificationReport.Difference> unsettled = new ArrayList<>();
      if (!differing.isEmpty()) {
        recheck(table, s, t, rowHash, differing, results, differences, unsettled);
      }
      store.recordChecks(workflow.id(), table.name(), new ArrayList<>(results.values()));
      return new TableResult(workflow.buckets().size(), rows, differences, unsettled);
    }
  }

  private void recheck(ReshardTable table, Connection s, Connection t, String rowHash, Set<Integer> buckets,
      Map<Integer, Object[]> results, List<VerificationReport.Difference> differences,
      List<VerificationReport.Difference> unsettled) throws SQLException {
    List<String> key = Replication.primaryKey(s, table.name());
    String keyText = key.isEmpty() ? "r::text" : "ROW(" + String.join(", ", key.stream().map(k -> "r." + Sql.ident(k))
        .toList()) + ")::text";
    String bucket = Sql.bucketOf(table, "r.", bucketCount);
    String rowsOf = "SELECT " + keyText + ", " + bucket + ", " + rowHash + " FROM " + Sql.table(table.name())
        + " r WHERE " + bucket + " = ANY(?::int[])";
    Map<String, Object[]> a = keyed(s, rowsOf, buckets, null);
    connections.catchUp(s, t);
    Map<String, Object[]> b = keyed(t, rowsOf, buckets, null);
    Set<String> candidates = new HashSet<>();
    for (String k : union(a.keySet(), b.keySet())) {
      if (!sameRow(a.get(k), b.get(k))) {
        candidates.add(k);
      }
    }
    Map<String, Integer> bucketOfKey = new HashMap<>();
    candidates.forEach(k -> bucketOfKey.put(k, (Integer) (a.containsKey(k) ? a.get(k)[0] : b.get(k)[0])));
    Set<String> confirmed = new TreeSet<>();
    String byKey = rowsOf + " AND " + keyText + " = ANY(?::text[])";
    for (int round = 0; round < ROUNDS && !candidates.isEmpty(); round++) {
      Map<String, Object[]> s1 = keyed(s, byKey, buckets, candidates);
      connections.catchUp(s, t);
      Map<String, Object[]> t1 = keyed(t, byKey, buckets, candidates);
      Map<String, Object[]> s2 = keyed(s, byKey, buckets, candidates);
      Set<String> stillChanging = new HashSet<>();
      for (String k : candidates) {
        if (!sameRow(s1.get(k), s2.get(k))) {
          stillChanging.add(k);
        } else if (!sameRow(s1.get(k), t1.get(k))) {
          confirmed.add(k);
        }
      }
      candidates = stillChanging;
    }
    summarize(table, confirmed, bucketOfKey, "different", results, differences);
    summarize(table, candidates, bucketOfKey, "changing", results, unsettled);
  }

  private static void summarize(ReshardTable table, Set<String> keys, Map<String, Integer> bucketOfKey, String status,
      Map<Integer, Object[]> results, List<VerificationReport.Difference> out) {
    Map<Integer, List<String>> byBucket = new TreeMap<>();
    for (String k : new TreeSet<>(keys)) {
      byBucket.computeIfAbsent(bucketOfKey.get(k), x -> new ArrayList<>()).add(k);
    }
    byBucket.forEach((bucket, list) -> {
      List<String> shown = list.subList(0, Math.min(KEYS_LISTED, list.size()));
      out.add(new VerificationReport.Difference(table.name(), bucket, list.size(), List.copyOf(shown)));
      Object[] r = results.get(bucket);
      if (r != null && !"different".equals(r[1])) {
        r[1] = status;
        r[3] = String.join(" ", shown);
      }
    });
  }

  private static Set<String> union(Set<String> a, Set<String> b) {
    Set<String> all = new HashSet<>(a);
    all.addAll(b);
    return all;
  }

  private static boolean sameRow(Object[] x, Object[] y) {
    return x == null ? y == null : y != null && x[1].equals(y[1]);
  }

  /** key text → [bucket, row hash]. */
  private static Map<String, Object[]> keyed(Connection c, String sql, Set<Integer> buckets, Set<String> keys)
      throws SQLException {
    Map<String, Object[]> out = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setArray(1, c.createArrayOf("int4", buckets.toArray()));
      if (keys != null) {
        ps.setArray(2, c.createArrayOf("text", keys.toArray()));
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1), new Object[] {rs.getInt(2), rs.getLong(3)});
        }
      }
    }
    return out;
  }

  private static Map<Integer, Aggregate> aggregates(Connection c, String sql) throws SQLException {
    Map<Integer, Aggregate> out = new HashMap<>();
    try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.put(rs.getInt(1), new Aggregate(rs.getLong(2), rs.getBigDecimal(3).stripTrailingZeros()));
      }
    }
    return out;
  }

  /** The hash of every column of row {@code r}, in the source's column order. */
  private static String rowHash(Connection source, String table) throws SQLException {
    List<String> columns = SchemaCopy.columns(source, table).stream().map(c -> "r." + Sql.ident(c.name())).toList();
    return "hashtextextended(ROW(" + String.join(", ", columns) + ")::text, 0)::numeric";
  }

  private static Connection prepared(Connection c) throws SQLException {
    Sql.execute(c, SESSION);
    return c;
  }
}
