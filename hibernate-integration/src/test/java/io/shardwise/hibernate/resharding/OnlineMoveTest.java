package io.shardwise.hibernate.resharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.routing.BucketStrategy;
import io.shardwise.hibernate.routing.ShardKeyType;
import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A move of a sixth of the buckets from s0 to s1 under a continuous load of order writes. */
@ShardedPostgres(shards = 2, scope = ShardedPostgres.Scope.RUN)
class OnlineMoveTest {
  static final String DB = "move_app";
  static final int MERCHANTS = 200;

  PostgresTopology pg;
  SessionFactory sf;
  ShardedSessions shards;
  String s0;
  String s1;

  @BeforeEach
  void shop(PostgresTopology pg) throws Exception {
    this.pg = pg;
    MoveFixture.freshDatabases(pg, DB);
    sf = MoveFixture.sessionFactory(pg, DB);
    shards = ShardedSessions.of(sf);
    s0 = pg.shard(0).primary().jdbcUrl(DB);
    s1 = pg.shard(1).primary().jdbcUrl(DB);
    shards.referenceTables().inTransaction(s -> {
      s.persist(new Country("DE", "Germany"));
      s.persist(new Country("FR", "France"));
    });
    for (long m = 1; m <= MERCHANTS; m++) {
      long merchant = m;
      shards.forKey(merchant).inTransaction(s -> {
        Merchant me = new Merchant(merchant, "merchant " + merchant, s.getReference(Country.class, "DE"));
        s.persist(me);
        for (int o = 0; o < 5; o++) {
          PurchaseOrder order = new PurchaseOrder(merchant * 1000 + o, merchant, "customer " + o);
          order.addItem(merchant * 100_000 + o * 10, "sku-" + o, o + 1);
          s.persist(order);
        }
      });
    }
  }

  @AfterEach
  void close() {
    if (sf != null) {
      sf.close();
    }
  }

  /** Buckets 0..170 of s0 (which owns 0..511). */
  static Set<Integer> moving() {
    Set<Integer> buckets = new TreeSet<>();
    for (int b = 0; b <= 170; b++) {
      buckets.add(b);
    }
    return buckets;
  }

  static boolean moves(long merchant) {
    return MoveFixture.bucketOf(merchant) <= 170;
  }

  @Test
  void planChangesNothingAndCountsTheRowsOfTheMovingBuckets() throws Exception {
    ReshardPlan plan = shards.resharding().plan(ReshardRequest.move("s0", "s1", moving(), List.of()));
    long merchants = 0;
    for (long m = 1; m <= MERCHANTS; m++) {
      merchants += moves(m) ? 1 : 0;
    }
    ReshardPlan.TablePlan orders = plan.tables().stream().filter(t -> t.table().equals("purchase_order")).findFirst()
        .orElseThrow();
    assertEquals(merchants * 5, orders.rows(), plan.describe());
    assertTrue(plan.tables().stream().anyMatch(t -> t.table().equals("country") && t.reference()), plan.describe());
    assertTrue(orders.replicaIdentity().startsWith("full"), plan.describe());
    ReshardPlan.TablePlan merchantsTable = plan.tables().stream().filter(t -> t.table().equals("merchant")).findFirst()
        .orElseThrow();
    assertTrue(merchantsTable.replicaIdentity().startsWith("unchanged"), plan.describe());
    assertEquals(0, MoveFixture.count(s0, "SELECT count(*) FROM pg_publication"));
    assertEquals(0, MoveFixture.count(s0, "SELECT count(*) FROM pg_replication_slots"));
    List<ReshardRequest> drain = shards.resharding().planDrain("s1");
    assertEquals(1, drain.size());
    assertEquals("s0", drain.get(0).target());
    assertEquals(512, drain.get(0).buckets().size(), "s1's buckets all go to s0, the only other shard");
    ReshardingException refused = assertThrows(ReshardingException.class,
        () -> shards.resharding().plan(ReshardRequest.move("s0", "s1", java.util.List.of(600), List.of())));
    assertTrue(refused.getMessage().contains("not owned by 's0'"), refused.getMessage());
    assertEquals("default", MoveFixture.strings(s0,
        "SELECT CASE relreplident WHEN 'd' THEN 'default' ELSE relreplident::text END FROM pg_class "
            + "WHERE relname = 'purchase_order'").get(0));
  }

  @Test
  void movesBucketsOnlineUnderWritesAndLosesNothing() throws Exception {
    Resharding moves = shards.resharding();
    List<String> messages = new CopyOnWriteArrayList<>();
    // a writer: inserts, updates and deletes orders of every merchant, keeping a ledger of what was acknowledged
    LedgerWriter writer = new LedgerWriter(shards, MERCHANTS);
    AtomicLong writes = writer.writes;
    try {
      ReshardWorkflow w = moves.start(ReshardRequest.move("s0", "s1", moving(), List.of()), p -> {
        if (p.message() != null) {
          messages.add(p.message());
        }
      });
      assertEquals(ReshardPhase.VERIFIED, w.phase(), String.join("\n", messages) + "\n" + w.lastError());
      assertTrue(messages.stream().anyMatch(m -> m.contains("replica identity of purchase_order")), messages.toString());
      assertEquals(2, MoveFixture.count(s1, "SELECT count(*) FROM country"));

      long moving = 1;
      while (!moves(moving)) {
        moving++;
      }
      int port0 = pg.shard(0).primary().port();
      int port1 = pg.shard(1).primary().port();
      assertEquals(port0, MoveFixture.serverPort(shards, moving, true));
      moves.switchReads(w.id());
      long key = moving;
      org.awaitility.Awaitility.await().until(() -> shards.shardMap().readOwnerOf(MoveFixture.bucketOf(key)).equals("s1"));
      assertEquals(port1, MoveFixture.serverPort(shards, key, true), "reads of a moving key go to the target");
      assertEquals(port0, MoveFixture.serverPort(shards, key, false), "writes still go to the source");

      SwitchResult result = moves.switchWrites(w.id());
      assertTrue(result.switched(), result.describe());
      org.awaitility.Awaitility.await().until(() -> shards.shardFor(key).equals("s1"));
      assertEquals(port1, MoveFixture.serverPort(shards, key, false), "writes go to the target");
      long before = writes.get();
      org.awaitility.Awaitility.await().until(() -> writes.get() > before + 50);
    } finally {
      writer.close();
    }
    assertEquals(List.of(), writer.errors);
    ReshardWorkflow done = moves.complete(moves.workflows().get(0).id(), p -> {});
    assertEquals(ReshardPhase.COMPLETED, done.phase());

    // every acknowledged order exactly once, on the shard its key routes to, as last written
    writer.assertEveryWriteOnItsOwner(s0, s1, m -> moves(m) || MoveFixture.bucketOf(m) >= 512);
    assertEquals(0, MoveFixture.count(s0, "SELECT count(*) FROM pg_replication_slots"));
    assertEquals(0, MoveFixture.count(s0, "SELECT count(*) FROM pg_publication"));
    assertEquals(0, MoveFixture.count(s1, "SELECT count(*) FROM pg_subscription"));
    assertEquals(0, MoveFixture.count(s0, "SELECT count(*) FROM pg_trigger WHERE tgname = 'shardwise_fence'"));
    assertEquals("default", MoveFixture.strings(s0, "SELECT CASE relreplident WHEN 'd' THEN 'default' ELSE "
        + "relreplident::text END FROM pg_class WHERE relname = 'purchase_order'").get(0));
    System.out.println("online move: " + writes.get() + " acknowledged writes, " + writer.fenced.get() + " fenced and retried");
  }

  /**
   * Tables listed parents first (an order before its items, which reference it by foreign key):
   * cancel deletes the copies on the target and complete the moved rows at the source, items first.
   */
  @Test
  void cancelAndCompleteDeleteReferencingRowsFirstWhateverTheTableOrder() throws Exception {
    List<ReshardTable> parentsFirst = List.of(ReshardTable.sharded("merchant", "id", ShardKeyType.LONG),
        ReshardTable.sharded("purchase_order", "merchant_id", ShardKeyType.LONG),
        ReshardTable.sharded("order_item", "merchant_id", ShardKeyType.LONG), ReshardTable.reference("country"));
    assertTrue(MoveFixture.count(s1, "SELECT count(*) FROM pg_constraint WHERE contype = 'f'"
        + " AND conrelid = 'order_item'::regclass AND confrelid = 'purchase_order'::regclass") > 0);
    Resharding moves = shards.resharding();
    long movedItems = MoveFixture.count(s0, "SELECT count(*) FROM order_item WHERE "
        + BucketStrategy.sqlBucket(ShardKeyType.LONG, "merchant_id", MoveFixture.BUCKETS) + " <= 170");
    assertTrue(movedItems > 0);
    long itemsOnS1 = MoveFixture.count(s1, "SELECT count(*) FROM order_item");

    ReshardWorkflow cancelled = moves.start(new ReshardRequest("s0", "s1", new TreeSet<>(moving()), parentsFirst, null),
        p -> { });
    assertEquals(ReshardPhase.VERIFIED, cancelled.phase(), String.valueOf(cancelled.lastError()));
    assertEquals(ReshardPhase.CANCELLED, moves.cancel(cancelled.id()).phase());
    assertEquals(itemsOnS1, MoveFixture.count(s1, "SELECT count(*) FROM order_item"), "the target's copies deleted");

    ReshardWorkflow w = moves.start(new ReshardRequest("s0", "s1", new TreeSet<>(moving()), parentsFirst, null),
        p -> { });
    assertEquals(ReshardPhase.VERIFIED, w.phase(), String.valueOf(w.lastError()));
    moves.switchReads(w.id());
    SwitchResult result = moves.switchWrites(w.id());
    for (int attempt = 0; !result.switched() && attempt < 5; attempt++) {
      result = moves.switchWrites(w.id());
    }
    assertTrue(result.switched(), result.describe());
    assertEquals(ReshardPhase.COMPLETED, moves.complete(w.id(), p -> { }).phase());
    assertEquals(itemsOnS1 + movedItems, MoveFixture.count(s1, "SELECT count(*) FROM order_item"));
    assertEquals(0, MoveFixture.count(s0, "SELECT count(*) FROM purchase_order WHERE "
        + BucketStrategy.sqlBucket(ShardKeyType.LONG, "merchant_id", MoveFixture.BUCKETS) + " <= 170"));
  }
}
