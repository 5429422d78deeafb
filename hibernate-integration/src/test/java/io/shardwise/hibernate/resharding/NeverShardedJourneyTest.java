package io.shardwise.hibernate.resharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.TransactionAbortedException;
import io.shardwise.hibernate.routing.ShardMapStaleException;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.OrderItem;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.Test;

/**
 * The first user of resharding: an application whose one database was never sharded (tables made
 * by plain Hibernate, a reference table, a table no entity maps) starts with that database as the
 * only shard and grows to two while orders are written, updated and deleted, and read, all along.
 */
@ShardedPostgres(shards = 2, scope = ShardedPostgres.Scope.RUN)
class NeverShardedJourneyTest {
  static final String DB = "journey";
  static final int MERCHANTS = 150;

  @Test
  void anUnshardedDatabaseBecomesTheFirstShardAndGrowsToTwoOnline(PostgresTopology pg) throws Exception {
    MoveFixture.freshDatabases(pg, DB);
    String s0 = pg.shard(0).primary().jdbcUrl(DB);
    String s1 = pg.shard(1).primary().jdbcUrl(DB);

    // 1. the application before Shardwise: plain Hibernate, one database
    Configuration plain = new Configuration().setProperty("hibernate.connection.url", s0)
        .setProperty("hibernate.connection.username", "postgres").setProperty("hibernate.hbm2ddl.auto", "create");
    for (Class<?> entity : MoveFixture.ENTITIES) {
      plain.addAnnotatedClass(entity);
    }
    try (SessionFactory legacy = plain.buildSessionFactory()) {
      legacy.inTransaction(s -> {
        Country de = new Country("DE", "Germany");
        s.persist(de);
        for (long m = 1; m <= MERCHANTS; m++) {
          s.persist(new Merchant(m, "merchant " + m, de));
          for (int o = 0; o < 4; o++) {
            PurchaseOrder order = new PurchaseOrder(m * 1000 + o, m, "customer " + o);
            s.persist(order);
            s.persist(order.addItem(m * 100_000 + o, "sku-" + o, 1));
          }
        }
      });
    }
    MoveFixture.execute(s0, "CREATE TABLE audit_log (id bigserial PRIMARY KEY, line text)");
    MoveFixture.execute(s0, "INSERT INTO audit_log (line) SELECT 'line ' || g FROM generate_series(1, 100) g");
    assertEquals(List.of(), MoveFixture.strings(s0, "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'shardwise%'"));

    // 2. Shardwise on top: that database is the only shard, owning every bucket
    SessionFactory sf = Shardwise.configure().credentials("postgres", null).entities(MoveFixture.ENTITIES)
        .shard("s0", s0).controlDatabase(MoveFixture.controlUrl(pg, DB), true)
        .property("shardwise.reshard.fence_grace_ms", "0")
        .property("shardwise.reshard.pause_limit_ms", MoveFixture.PAUSE_LIMIT_MS).buildSessionFactory();
    try {
      ShardedSessions shards = ShardedSessions.of(sf);
      assertEquals(java.util.Set.of("s0"), shards.shardIds());
      Resharding moves = shards.resharding();
      List<ReshardRequest> proposed = moves.planAddShard(ShardDescriptor.of("s1", s1));
      assertEquals(1, proposed.size());
      assertEquals(512, proposed.get(0).buckets().size(), "an equal second shard takes half the buckets");
      TreeSet<Integer> third = new TreeSet<>();
      for (int b = 0; b < 1024 / 3; b++) {
        third.add(b);
      }
      ReshardRequest request = new ReshardRequest("s0", "s1", third, List.of(), ShardDescriptor.of("s1", s1));

      // 3. continuous load: writes with a ledger of what was acknowledged, and reads that must never miss
      ConcurrentHashMap<Long, String> ledger = new ConcurrentHashMap<>();
      for (long m = 1; m <= MERCHANTS; m++) {
        for (int o = 0; o < 4; o++) {
          ledger.put(m * 1000 + o, "customer " + o);
        }
      }
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong acknowledged = new AtomicLong();
      AtomicLong reads = new AtomicLong();
      AtomicLong retried = new AtomicLong();
      ConcurrentHashMap<String, Integer> retriedTypes = new ConcurrentHashMap<>();
      AtomicReference<String> phase = new AtomicReference<>("before");
      List<String> problems = new CopyOnWriteArrayList<>();
      Thread writer = new Thread(() -> {
        Random random = new Random(11);
        long next = 100;
        while (!stop.get()) {
          long merchant = 1 + random.nextInt(MERCHANTS);
          int op = random.nextInt(4);
          long slot = next % 900;
          while (ledger.containsKey(merchant * 1000 + 100 + slot)) {
            slot = (slot + 1) % 900;   // a merchant's 900 ids for new orders are reused once deleted, never twice at once
          }
          long created = merchant * 1000 + 100 + slot;
          String value = "w" + acknowledged.get();
          Long deleteId = ledger.keySet().stream().filter(k -> k / 1000 == merchant && k % 1000 >= 100).findAny()
              .orElse(null);
          for (int attempt = 0; ; attempt++) {
            try {
              if (op == 0 || op == 3 && deleteId == null) {
                shards.forKey(merchant).inTransaction(s -> s.persist(new PurchaseOrder(created, merchant, value)));
                ledger.put(created, value);
                next++;
              } else if (op == 3) {
                shards.forKey(merchant).inTransaction(s -> s.remove(s.find(PurchaseOrder.class, deleteId)));
                ledger.remove(deleteId);
              } else {
                long id = merchant * 1000 + random.nextInt(4);
                shards.forKey(merchant).inTransaction(s -> s.find(PurchaseOrder.class, id).setCustomer(value));
                ledger.put(id, value);
              }
              acknowledged.incrementAndGet();
              break;
            } catch (BucketMovedException | ShardMapStaleException e) {
              // what an application retries after a move (docs/resharding.md): nothing was committed
              retried.incrementAndGet();
              retriedTypes.merge(e.getClass().getSimpleName(), 1, Integer::sum);
              if (attempt > 50) {
                problems.add("writer gave up: " + e.getMessage());
                return;
              }
            } catch (TransactionAbortedException e) {
              if (!e.isRetryable() || attempt > 50) {
                problems.add("writer (" + phase.get() + "): " + e + " caused by " + rootCause(e));
                return;
              }
              retried.incrementAndGet();
              retriedTypes.merge("TransactionAbortedException(retryable, SQLSTATE " + e.sqlState() + ")", 1, Integer::sum);
            } catch (RuntimeException e) {
              problems.add("writer (" + phase.get() + "): " + e + " caused by " + rootCause(e));
              return;
            }
          }
        }
      }, "journey-writer");
      Thread reader = new Thread(() -> {
        Random random = new Random(5);
        while (!stop.get()) {
          long merchant = 1 + random.nextInt(MERCHANTS);
          long id = merchant * 1000 + random.nextInt(4);
          try {
            boolean readOnly = random.nextBoolean();
            var route = readOnly ? shards.forKey(merchant).readOnly() : shards.forKey(merchant);
            PurchaseOrder found = route.fromTransaction(s -> s.find(PurchaseOrder.class, id));
            if (found == null) {
              problems.add("read missed order " + id + " (" + (readOnly ? "read-only" : "read-write") + ") during "
                  + phase.get());
            }
            reads.incrementAndGet();
          } catch (RuntimeException e) {
            problems.add("reader (" + phase.get() + "): " + e + " caused by " + rootCause(e));
          }
        }
      }, "journey-reader");
      writer.start();
      reader.start();
      ReshardWorkflow w;
      try {
        phase.set("copy, catch-up and verification");
        w = moves.start(request, p -> { });
        assertEquals(ReshardPhase.VERIFIED, w.phase(), String.valueOf(w.lastError()));
        phase.set("reads switched");
        moves.switchReads(w.id());
        awaitMore(acknowledged, 30, problems);
        phase.set("write switch");
        SwitchResult result = moves.switchWrites(w.id());
        for (int attempt = 0; !result.switched() && attempt < 5; attempt++) {
          result = moves.switchWrites(w.id());
        }
        assertTrue(result.switched(), result.describe());
        System.out.println("journey: " + result.describe());
        phase.set("writes switched");
        awaitMore(acknowledged, 30, problems);
      } finally {
        stop.set(true);
        writer.join();
        reader.join();
      }
      assertEquals(List.of(), problems);
      phase.set("complete");
      assertEquals(ReshardPhase.COMPLETED, moves.complete(w.id(), p -> { }).phase());

      // 4. afterwards: every acknowledged write exactly once, on the shard its key routes to
      Map<Long, String> onS0 = MoveFixture.customersById(s0);
      Map<Long, String> onS1 = MoveFixture.customersById(s1);
      for (var e : ledger.entrySet()) {
        long merchant = e.getKey() / 1000;
        boolean moved = third.contains(MoveFixture.bucketOf(merchant));
        assertEquals(e.getValue(), (moved ? onS1 : onS0).get(e.getKey()), "order " + e.getKey());
        assertFalse((moved ? onS0 : onS1).containsKey(e.getKey()), "order " + e.getKey() + " also on the other shard");
      }
      assertEquals(ledger.size(), onS0.size() + onS1.size(), "nothing extra");
      for (String table : List.of("merchant", "order_item")) {
        String key = table.equals("merchant") ? "id" : "merchant_id";
        assertEquals(0, MoveFixture.count(s0, "SELECT count(*) FROM " + table + " WHERE "
            + io.shardwise.hibernate.routing.BucketStrategy.sqlBucket(io.shardwise.hibernate.routing.ShardKeyType.LONG,
                key, 1024) + " < 341"), table + " rows of moved buckets left on s0");
      }
      assertEquals(MERCHANTS * 4L, MoveFixture.count(s0, "SELECT count(*) FROM order_item")
          + MoveFixture.count(s1, "SELECT count(*) FROM order_item"));
      assertEquals(1, MoveFixture.count(s1, "SELECT count(*) FROM country"), "the reference table is on the new shard");
      assertEquals(100, MoveFixture.count(s0, "SELECT count(*) FROM audit_log"), "the unmapped table is untouched");
      assertEquals(List.of(), MoveFixture.strings(s1, "SELECT relname FROM pg_class WHERE relname = 'audit_log'"));
      assertEquals(List.of(), MoveFixture.strings(s0, "SELECT slot_name FROM pg_replication_slots"));
      System.out.println("journey: " + acknowledged.get() + " acknowledged writes (" + retried.get()
          + " retried: " + retriedTypes + "), " + reads.get() + " reads, none missed");
    } finally {
      sf.close();
    }
  }

  private static Throwable rootCause(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root;
  }

  /**
   * Waits for {@code more} acknowledged writes; fails at once with what the writer or the reader
   * recorded when one of them has stopped on a problem (the writer returns on its first one, so
   * waiting for its writes would only time out without saying why).
   */
  static void awaitMore(AtomicLong counter, long more, List<String> problems) {
    long from = counter.get();
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(60)).until(() -> {
      if (!problems.isEmpty()) {
        throw new AssertionError("the load recorded problems while " + more + " more writes were awaited: " + problems);
      }
      return counter.get() >= from + more;
    });
  }
}
