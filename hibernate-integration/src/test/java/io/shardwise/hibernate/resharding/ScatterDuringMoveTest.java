package io.shardwise.hibernate.resharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.routing.ControlDatabase;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.scatter.UnsupportedScatterQueryException;
import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.awaitility.Awaitility;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/**
 * Scatter-gather during a move: from the copy until {@code complete} two shards hold the moving
 * buckets' rows, and every scatter count, sum, group and list must still give the exact answer of
 * one database, at every phase; a shape the per-shard filter cannot make exact is refused.
 */
@ShardedPostgres(shards = 2, scope = ShardedPostgres.Scope.RUN)
class ScatterDuringMoveTest {
  static final String DB = "scatter_move_app";
  static final String MOVING = "0-300";

  @Test
  void scatterQueriesCountEveryRowOnceAtEveryPhaseOfAMove(PostgresTopology pg) throws Exception {
    MoveFixture.freshDatabases(pg, DB);
    String s0 = pg.shard(0).primary().jdbcUrl(DB);
    String s1 = pg.shard(1).primary().jdbcUrl(DB);
    ControlDatabase control = new ControlDatabase(MoveFixture.controlUrl(pg, DB), "postgres", null);
    try (SessionFactory sf = MoveFixture.sessionFactory(pg, DB)) {
      ShardedSessions shards = ShardedSessions.of(sf);
      shards.referenceTables().inTransaction(s -> s.persist(new Country("DE", "Germany")));
      // the truth: what one database holding every row answers
      long orders = 0;
      long itemCount = 0;
      long quantities = 0;
      long idSum = 0;
      List<Long> orderIds = new ArrayList<>();
      Map<Long, Long> ordersPerMerchant = new TreeMap<>();
      int moving = 0;
      for (long m = 1; m <= 80; m++) {
        long merchant = m;
        int n = (int) (m % 4) + 1;
        shards.forKey(merchant).inTransaction(s -> {
          s.persist(new Merchant(merchant, "m" + merchant, s.getReference(Country.class, "DE")));
          for (int o = 0; o < n; o++) {
            PurchaseOrder order = new PurchaseOrder(merchant * 1000 + o, merchant, "c" + o);
            order.addItem(merchant * 100_000 + o * 10, "sku-" + o, o + 1);
            order.addItem(merchant * 100_000 + o * 10 + 1, "sku-x", 2);
            s.persist(order);
          }
        });
        for (int o = 0; o < n; o++) {
          orders++;
          idSum += merchant * 1000 + o;
          orderIds.add(merchant * 1000 + o);
          itemCount += 2;
          quantities += (o + 1) + 2;
        }
        ordersPerMerchant.put(merchant, (long) n);
        moving += MoveFixture.bucketOf(merchant) <= 300 && shards.shardFor(merchant).equals("s0") ? 1 : 0;
      }
      assertTrue(moving > 5, "some merchants sit in the moving buckets of s0: " + moving);
      Truth truth = new Truth(orders, idSum, itemCount, quantities, orderIds, ordersPerMerchant);

      check("before the move", shards, truth, s0, s1);
      assertFalse(shards.shardMap().hasCopies());

      Resharding moves = shards.resharding();
      ReshardWorkflow w = moves.start(ReshardRequest.move("s0", "s1", BucketRanges.parse(MOVING), List.of()), p -> { });
      assertEquals(ReshardPhase.VERIFIED, w.phase(), String.valueOf(w.lastError()));
      awaitMap(shards, control);
      ShardMap map = shards.shardMap();
      assertTrue(map.hasCopies());
      assertEquals("s1", map.copyHolderOf(0));
      assertEquals("s0", map.ownerOf(0));
      assertNull(map.copyHolderOf(1023));
      check("after the copy (VERIFIED)", shards, truth, s0, s1);
      assertRefusesOuterJoin(shards);

      moves.switchReads(w.id());
      awaitMap(shards, control);
      assertEquals("s1", shards.shardMap().readOwnerOf(0));
      check("after the read switch", shards, truth, s0, s1);
      assertRefusesOuterJoin(shards);

      assertTrue(moves.switchWrites(w.id()).switched());
      awaitMap(shards, control);
      assertEquals("s1", shards.shardMap().ownerOf(0));
      assertEquals("s0", shards.shardMap().copyHolderOf(0), "the old owner holds the copy until complete");
      check("after the write switch", shards, truth, s0, s1);
      assertRefusesOuterJoin(shards);

      assertEquals(ReshardPhase.COMPLETED, moves.complete(w.id(), p -> { }).phase());
      awaitMap(shards, control);
      assertFalse(shards.shardMap().hasCopies(), "complete clears the copies");
      check("after complete", shards, truth, s0, s1);
      assertOuterJoinAnswers(shards, truth);

      // a cancelled move clears its copies as well, and the answers stay exact throughout
      ReshardWorkflow back = moves.start(ReshardRequest.move("s1", "s0", BucketRanges.parse("0-100"), List.of()),
          p -> { });
      assertEquals(ReshardPhase.VERIFIED, back.phase(), String.valueOf(back.lastError()));
      awaitMap(shards, control);
      assertEquals("s0", shards.shardMap().copyHolderOf(0));
      check("after the copy of a second move", shards, truth, s0, s1);
      assertEquals(ReshardPhase.CANCELLED, moves.cancel(back.id()).phase());
      awaitMap(shards, control);
      assertFalse(shards.shardMap().hasCopies(), "cancel clears the copies");
      check("after cancel", shards, truth, s0, s1);
    }
  }

  record Truth(long orders, long idSum, long items, long quantities, List<Long> orderIds,
      Map<Long, Long> ordersPerMerchant) {}

  static void awaitMap(ShardedSessions shards, ControlDatabase control) {
    long version = control.version();
    Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> shards.shardMap().version() >= version);
  }

  /** Each scatter answer against the truth; the raw rows on the servers say how many copies exist. */
  static void check(String phase, ShardedSessions shards, Truth truth, String s0, String s1) throws Exception {
    long raw = MoveFixture.count(s0, "SELECT count(*) FROM purchase_order")
        + MoveFixture.count(s1, "SELECT count(*) FROM purchase_order");
    long count = shards.scatter().createQuery("select count(o) from PurchaseOrder o", Long.class).getSingleResult();
    long idSum = shards.scatter().createQuery("select sum(o.id) from PurchaseOrder o", Long.class).getSingleResult();
    long items = shards.scatter().createQuery("select count(i) from OrderItem i join i.order o", Long.class)
        .getSingleResult();
    long quantities = shards.scatter().createQuery("select sum(i.quantity) from OrderItem i", Long.class)
        .getSingleResult();
    List<Long> ids = shards.scatter().createQuery("select o.id from PurchaseOrder o order by o.id", Long.class)
        .getResultList();
    Map<Long, Long> perMerchant = new TreeMap<>();
    for (Object[] row : shards.scatter().createQuery("select o.merchantId, count(o) from PurchaseOrder o group by"
        + " o.merchantId", Object[].class).getResultList()) {
      perMerchant.put((Long) row[0], (Long) row[1]);
    }
    System.out.printf("%s: %d purchase_order rows on the servers; scatter count %d (truth %d), sum(id) %d (truth %d),"
        + " items %d (truth %d), sum(quantity) %d (truth %d), list %d ids (truth %d)%n", phase, raw, count,
        truth.orders(), idSum, truth.idSum(), items, truth.items(), quantities, truth.quantities(), ids.size(),
        truth.orderIds().size());
    assertEquals(truth.orders(), count, phase + ": count");
    assertEquals(truth.idSum(), idSum, phase + ": sum");
    assertEquals(truth.items(), items, phase + ": count over an inner join");
    assertEquals(truth.quantities(), quantities, phase + ": sum over the co-located table");
    assertEquals(truth.orderIds(), ids, phase + ": list");
    assertEquals(truth.ordersPerMerchant(), perMerchant, phase + ": group by");
  }

  static void assertRefusesOuterJoin(ShardedSessions shards) {
    UnsupportedScatterQueryException e = assertThrows(UnsupportedScatterQueryException.class, () -> shards.scatter()
        .createQuery("select o.id, count(i) from PurchaseOrder o left join o.items i group by o.id", Object[].class)
        .getResultList());
    assertTrue(e.getMessage().contains("while buckets move") && e.getMessage().contains("left joins OrderItem"),
        e.getMessage());
  }

  static void assertOuterJoinAnswers(ShardedSessions shards, Truth truth) {
    List<Object[]> rows = shards.scatter().createQuery("select o.id, count(i) from PurchaseOrder o left join o.items i"
        + " group by o.id", Object[].class).getResultList();
    assertEquals(truth.orders(), rows.size());
    assertTrue(rows.stream().allMatch(r -> (Long) r[1] == 2L));
  }
}
