package io.shardwise.sample;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.resharding.BucketMovedException;
import io.shardwise.hibernate.resharding.BucketRanges;
import io.shardwise.hibernate.resharding.ReshardPhase;
import io.shardwise.hibernate.resharding.ReshardPlan;
import io.shardwise.hibernate.resharding.ReshardProgress;
import io.shardwise.hibernate.resharding.ReshardRequest;
import io.shardwise.hibernate.resharding.ReshardWorkflow;
import io.shardwise.hibernate.resharding.Resharding;
import io.shardwise.hibernate.resharding.SwitchResult;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.sample.model.Merchant;
import io.shardwise.sample.model.PurchaseOrder;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresTopology;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The walkthrough's resharding step: a fourth shard's server is started, added to the shard map,
 * and given its fair share of the buckets (one move per donor, as {@link Resharding#planAddShard}
 * proposes) while a writer thread keeps inserting and updating orders. Afterwards every row is
 * looked up on every primary, each primary named by {@code inet_server_port()}: every order the
 * writer had acknowledged is there once, with its last value, on the server its key routes to.
 *
 * <p>The fourth server outlives the session factory (which holds a pool to it): close this after it.
 */
final class AddShardLive implements AutoCloseable {
  /** Merchants made for this step; a small volume keeps the moves fast. */
  static final long FIRST_MERCHANT = 3001;
  static final int MERCHANTS = 40;
  static final int ORDERS_PER_MERCHANT = 5;
  private static final int MAX_SWITCH_ATTEMPTS = 5;
  /** The embedded topology's user (no password); a deployment reads the rows with its own credentials. */
  private static final String USER = "postgres";

  private PostgresTopology fourth;

  /**
   * What the step did and found.
   *
   * @param newShard the added shard's id
   * @param bucketsMoved buckets the new shard received
   * @param switches the write switch of each move, in order
   * @param switchWriteMaxMillis per move, the slowest write of the writer thread that overlapped its write switch
   * @param writes writes the writer had acknowledged (inserts and updates)
   * @param retried writes retried after {@link BucketMovedException}
   * @param ordersWritten orders the writer inserted during the step
   * @param missing of those, orders found on no primary
   * @param duplicated orders found on more than one primary (or twice on one)
   * @param stale orders whose status is not the last one the writer acknowledged
   * @param misplaced rows (merchants, orders, items of every merchant) on a primary other than their key's
   * @param rowsChecked rows looked up for {@code misplaced}
   * @param ordersPerServer the writer's orders per primary, by server name
   */
  record Result(String newShard, int bucketsMoved, List<SwitchResult> switches, List<Double> switchWriteMaxMillis,
      long writes, long retried, int ordersWritten, int missing, int duplicated, int stale, long misplaced,
      long rowsChecked, Map<String, Integer> ordersPerServer, double writeMaxMillis, double writeP50Millis,
      String writerProblem) {

    boolean allGood() {
      return writerProblem == null && missing == 0 && duplicated == 0 && stale == 0 && misplaced == 0
          && switches.stream().allMatch(SwitchResult::switched);
    }
  }

  /** Starts the new shard's server: one more PostgreSQL primary, with {@code wal_level = logical} like every testkit primary. */
  PostgresNode startServer() {
    fourth = PostgresTopology.builder().shards(1).replicasPerShard(0).start();
    return fourth.shard(0).primary();
  }

  /** Merchants {@value #FIRST_MERCHANT}.. with a few orders each, so that every donor has rows to give. */
  static void seed(ShardedSessions shards) {
    for (long m = FIRST_MERCHANT; m < FIRST_MERCHANT + MERCHANTS; m++) {
      long merchant = m;
      shards.forKey(merchant).inTransaction(s -> {
        s.persist(new Merchant(merchant, "Live merchant " + merchant, null));
        for (int o = 0; o < ORDERS_PER_MERCHANT; o++) {
          s.persist(new PurchaseOrder(merchant, "seed shopper").add("SKU-" + o, o + 1));
        }
      });
    }
  }

  /**
   * Adds shard {@code newShardId} on the server {@link #startServer} started, under a continuous
   * load of order writes, and checks the result on every primary of the shard map.
   */
  Result run(Walkthrough walk, ShardedSessions shards, String newShardId) throws Exception {
    PostgresNode server = fourth.shard(0).primary();
    Resharding moves = shards.resharding();
    List<ReshardRequest> requests = moves.planAddShard(ShardDescriptor.of(newShardId, server.jdbcUrl()));
    int buckets = requests.stream().mapToInt(r -> r.buckets().size()).sum();
    walk.say("plan (changes nothing): %d of %d buckets to %s, one move per donor:", buckets,
        shards.shardMap().bucketCount(), newShardId);
    for (ReshardRequest request : requests) {
      ReshardPlan plan = moves.plan(request);
      StringBuilder tables = new StringBuilder();
      for (ReshardPlan.TablePlan t : plan.tables()) {
        if (!t.reference() && t.rows() > 0) {
          tables.append(tables.length() == 0 ? "" : ", ").append(t.table()).append(' ').append(t.rows());
        }
      }
      walk.say("  %s -> %s: %d buckets %s, %d rows, %,d bytes (%s)", request.source(), request.target(),
          request.buckets().size(), BucketRanges.format(request.buckets()), plan.rows(), plan.bytes(), tables);
    }

    Writer writer = new Writer(shards);
    Thread thread = new Thread(writer, "sample-order-writer");
    List<SwitchResult> switches = new ArrayList<>();
    List<long[]> switchWindows = new ArrayList<>();
    thread.start();
    try {
      writer.awaitWrites(20);
      walk.say("a writer thread inserts and updates orders of all %d merchants from now on", MERCHANTS);
      for (ReshardRequest request : requests) {
        walk.say("move %s -> %s: copy, catch up, verify", request.source(), request.target());
        ReshardWorkflow w = moves.start(request, progressLine(walk));
        walk.endLive();
        if (w.phase() != ReshardPhase.VERIFIED) {
          throw new IllegalStateException("Move " + w.id() + " stopped in " + w.phase() + ": " + w.lastError()
              + ". Run `shardwise reshard status " + w.id() + "`, then verify or cancel it.");
        }
        moves.switchReads(w.id());
        walk.say("[%s] verified; reads switched to %s (%,d writes so far)", w.id(), request.target(), writer.writes.get());
        SwitchResult result = null;
        long[] window = null;
        for (int attempt = 1; attempt <= MAX_SWITCH_ATTEMPTS && (result == null || !result.switched()); attempt++) {
          long from = System.nanoTime();
          result = moves.switchWrites(w.id());
          window = new long[] {from, System.nanoTime()};
          walk.say("[%s] %s", w.id(), result.describe());
        }
        switches.add(result);
        switchWindows.add(window);
        if (!result.switched()) {
          throw new IllegalStateException("The write switch of " + w.id() + " was abandoned " + MAX_SWITCH_ATTEMPTS
              + " times; run `shardwise reshard switch-writes " + w.id() + "` when the machine is less busy.");
        }
        moves.complete(w.id(), progressLine(walk));
        walk.endLive();
        walk.say("[%s] completed: moved rows deleted on %s; publication, subscription, slot and fences dropped",
            w.id(), request.source());
      }
      writer.awaitWrites(writer.writes.get() + 20);
    } finally {
      writer.stop.set(true);
      thread.join();
    }

    List<Double> switchMax = new ArrayList<>();
    for (long[] window : switchWindows) {
      switchMax.add(writer.maxOverlapping(window[0], window[1]));
    }

    // Afterwards: every row on every primary of the map, each server named by itself.
    Map<Long, List<String[]>> orders = new HashMap<>(); // id -> (server port, merchant, status)
    Map<Long, Integer> expectedPort = new HashMap<>();
    Map<Integer, String> serverNames = new HashMap<>();
    long misplaced = 0;
    long checked = 0;
    for (ShardDescriptor shard : shards.shardMap().shards().values()) {
      try (Connection c = DriverManager.getConnection(shard.primaryUrl(), USER, null); Statement st = c.createStatement()) {
        try (ResultSet rs = st.executeQuery("SELECT inet_server_port()")) {
          rs.next();
          serverNames.put(rs.getInt(1), shard.id() + "-primary");
        }
        try (ResultSet rs = st.executeQuery("SELECT inet_server_port(), id, merchant_id, status FROM purchase_order")) {
          while (rs.next()) {
            orders.computeIfAbsent(rs.getLong(2), k -> new ArrayList<>()).add(new String[] {
                Integer.toString(rs.getInt(1)), Long.toString(rs.getLong(3)), rs.getString(4)});
          }
        }
        for (String sql : List.of("SELECT inet_server_port(), merchant_id FROM purchase_order",
            "SELECT inet_server_port(), merchant_id FROM order_item", "SELECT inet_server_port(), id FROM merchant")) {
          try (ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
              long key = rs.getLong(2);
              int owner = expectedPort.computeIfAbsent(key, k -> routedPort(shards, k));
              checked++;
              if (owner != rs.getInt(1)) {
                misplaced++;
              }
            }
          }
        }
      }
    }
    int missing = 0;
    int duplicated = 0;
    int stale = 0;
    Map<String, Integer> perServer = new TreeMap<>();
    for (Map.Entry<Long, String> e : writer.ledger.entrySet()) {
      List<String[]> copies = orders.get(e.getKey());
      if (copies == null) {
        missing++;
        continue;
      }
      if (copies.size() > 1) {
        duplicated++;
      }
      if (!copies.get(0)[2].equals(e.getValue())) {
        stale++;
      }
      perServer.merge(serverNames.get(Integer.parseInt(copies.get(0)[0])), 1, Integer::sum);
    }
    return new Result(newShardId, buckets, switches, switchMax, writer.writes.get(), writer.retried.get(),
        writer.ledger.size(), missing, duplicated, stale, misplaced, checked, perServer, writer.percentile(1.0),
        writer.percentile(0.5), writer.problem);
  }

  /** Prints the result as the walkthrough shows it. */
  static void print(Walkthrough walk, Result r) {
    walk.say("%s owns %d buckets now; the writer: %,d writes acknowledged (%d retried after BucketMovedException),"
        + " p50 %.1f ms, max %.1f ms", r.newShard(), r.bucketsMoved(), r.writes(), r.retried(), r.writeP50Millis(),
        r.writeMaxMillis());
    for (int i = 0; i < r.switches().size(); i++) {
      walk.say("write switch %d: writes paused %.1f ms (measured by the mover); slowest write around it, as the"
          + " writer saw it: %.1f ms", i + 1, r.switches().get(i).pauseMillis(), r.switchWriteMaxMillis().get(i));
    }
    walk.say("the %d orders written during the moves, by server (inet_server_port()): %s", r.ordersWritten(),
        r.ordersPerServer());
    walk.say("missing %d, duplicated %d, stale %d; rows on a server their key does not route to: %d of %,d",
        r.missing(), r.duplicated(), r.stale(), r.misplaced(), r.rowsChecked());
    if (r.writerProblem() != null) {
      walk.say("the writer stopped: %s", r.writerProblem());
    }
  }

  private static int routedPort(ShardedSessions shards, long merchant) {
    return shards.forKey(merchant).fromTransaction(s -> s.createNativeQuery("select inet_server_port()", Integer.class)
        .getSingleResult());
  }

  private static Consumer<ReshardProgress> progressLine(Walkthrough walk) {
    return p -> {
      if (p.message() != null) {
        walk.say("[%s] %s", p.workflowId(), p.message());
      } else {
        walk.live(String.format("[%s] %s", p.workflowId(), p.bar(24)));
      }
    };
  }

  @Override
  public void close() {
    if (fourth != null) {
      fourth.close();
    }
  }

  /** Inserts (two in three) and updates orders of the step's merchants until stopped; keeps a ledger. */
  private static final class Writer implements Runnable {
    private final ShardedSessions shards;
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong writes = new AtomicLong();
    final AtomicLong retried = new AtomicLong();
    /** Order id to the status last acknowledged; read after the thread ended. */
    final Map<Long, String> ledger = new HashMap<>();
    private final List<Long> ids = new ArrayList<>();
    private final Map<Long, Long> merchants = new HashMap<>();
    private long[] starts = new long[4096];
    private long[] latencies = new long[4096];
    private int count;
    volatile String problem;

    Writer(ShardedSessions shards) {
      this.shards = shards;
    }

    @Override
    public void run() {
      Random random = new Random(3);
      while (!stop.get()) {
        long merchant = FIRST_MERCHANT + random.nextInt(MERCHANTS);
        boolean update = !ids.isEmpty() && random.nextInt(3) == 0;
        long updated = update ? ids.get(random.nextInt(ids.size())) : 0;
        String status = "PAID-" + writes.get();
        long start = System.nanoTime();
        try {
          for (int attempt = 0; ; attempt++) {
            try {
              if (update) {
                long owner = merchantOf(updated);
                shards.forKey(owner).inTransaction(s -> s.find(PurchaseOrder.class, updated).setStatus(status));
                ledger.put(updated, status);
              } else {
                PurchaseOrder order = new PurchaseOrder(merchant, "live shopper");
                shards.forKey(merchant).inTransaction(s -> s.persist(order));
                ledger.put(order.getId(), order.getStatus());
                ids.add(order.getId());
                merchants.put(order.getId(), merchant);
              }
              break;
            } catch (BucketMovedException e) {
              retried.incrementAndGet();
              if (attempt == 20) {
                throw e;
              }
            }
          }
        } catch (RuntimeException e) {
          problem = e.toString();
          return;
        }
        record(start, System.nanoTime() - start);
        writes.incrementAndGet();
      }
    }

    private long merchantOf(long order) {
      return merchants.get(order);
    }

    private synchronized void record(long start, long latency) {
      if (count == starts.length) {
        starts = java.util.Arrays.copyOf(starts, count * 2);
        latencies = java.util.Arrays.copyOf(latencies, count * 2);
      }
      starts[count] = start;
      latencies[count++] = latency;
    }

    /** The slowest write that was running at some time between {@code from} and {@code to}, in ms. */
    synchronized double maxOverlapping(long from, long to) {
      long max = 0;
      for (int i = 0; i < count; i++) {
        if (starts[i] <= to && starts[i] + latencies[i] >= from) {
          max = Math.max(max, latencies[i]);
        }
      }
      return max / 1e6;
    }

    synchronized double percentile(double p) {
      if (count == 0) {
        return 0;
      }
      long[] sorted = java.util.Arrays.copyOf(latencies, count);
      java.util.Arrays.sort(sorted);
      return sorted[(int) Math.min(count - 1, Math.ceil(p * count) - 1)] / 1e6;
    }

    /** Waits (polling, with a deadline) until at least {@code total} writes were acknowledged. */
    void awaitWrites(long total) {
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(60);
      while (writes.get() < total && problem == null) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("The order writer made " + writes.get() + " writes in 60 s, waiting for "
              + total + "; is a shard down?");
        }
        java.util.concurrent.locks.LockSupport.parkNanos(2_000_000);
      }
    }
  }
}
