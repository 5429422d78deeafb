package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.harness.Layout;
import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.OrderItem;
import io.shardwise.hibernate.shop.PurchaseOrder;
import jakarta.persistence.EntityManager;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.Session;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A co-located merchant / order / item graph, checked row by row with JDBC. Run on every layout by
 * {@link CoreMatrixTest}.
 */
abstract class ShardedPersistenceCases extends MatrixCases {

  @BeforeEach
  void france() throws SQLException {
    unit.executeOnEveryShard("INSERT INTO country (code, name) VALUES ('FR', 'France')");
  }

  @Test
  void everyRowOfAMerchantLivesOnTheShardOfItsKeyAndNowhereElse() throws SQLException {
    Map<Long, String> expected = new HashMap<>();
    for (long merchantId = 1; merchantId <= 60; merchantId++) {
      long m = merchantId;
      shards.forKey(m).inTransaction(session -> {
        Country gb = session.getReference(Country.class, "GB");
        session.persist(new Merchant(m, "merchant " + m, gb));
        for (int o = 0; o < 2; o++) {
          PurchaseOrder order = new PurchaseOrder(m * 100 + o, m, "customer " + o);
          order.addItem(m * 1000 + o * 10, "SKU-" + o, o + 1);
          order.addItem(m * 1000 + o * 10 + 1, "SKU-X", 1);
          session.persist(order);
        }
      });
      expected.put(m, shards.shardFor(m));
    }
    assertEquals(layout.shards(), expected.values().stream().distinct().count(),
        "60 merchants spread over every shard of " + layout);

    for (Map.Entry<Long, String> e : expected.entrySet()) {
      long m = e.getKey();
      List<Integer> want = List.of(Layout.indexOf(e.getValue()));
      assertEquals(want, unit.shardsHolding("SELECT count(*) FROM merchant WHERE id = ?", m), "merchant " + m);
      assertEquals(want, unit.shardsHolding("SELECT count(*) FROM purchase_order WHERE merchant_id = ?", m),
          "orders of merchant " + m);
      assertEquals(want, unit.shardsHolding("SELECT count(*) FROM order_item WHERE merchant_id = ?", m),
          "items of merchant " + m);
    }
    long total = 0;
    for (int i = 0; i < layout.shards(); i++) {
      total += unit.count(i, "SELECT count(*) FROM order_item");
    }
    assertEquals(60 * 4, total, "no row written twice");
  }

  @Test
  void joinsOfACoLocatedGraphRunInsideOneShard() {
    long m = 7;
    shards.forKey(m).inTransaction(session -> {
      session.persist(new Merchant(m, "Seven", session.getReference(Country.class, "FR")));
      PurchaseOrder order = new PurchaseOrder(700, m, "Grace");
      order.addItem(7001, "LAMP", 2);
      order.addItem(7002, "BULB", 6);
      session.persist(order);
    });

    List<Object[]> rows = shards.forKey(m).fromSession(session -> session.createSelectionQuery(
            "select m.name, c.name, i.sku, i.quantity from Merchant m join m.country c, PurchaseOrder o"
                + " join o.items i where m.id = :m and o.merchantId = :m order by i.sku", Object[].class)
        .setParameter("m", m)
        .getResultList());

    assertEquals(2, rows.size());
    assertEquals(List.of("Seven", "France", "BULB", 6), List.of(rows.get(0)));
    assertEquals(List.of("Seven", "France", "LAMP", 2), List.of(rows.get(1)));
  }

  @Test
  void theReferenceTableIsReadableOnEveryShard() {
    for (String shardId : shards.shardIds()) {
      Country gb = shards.forShard(shardId).fromSession(s -> s.find(Country.class, "GB"));
      assertEquals("United Kingdom", gb.getName(), "on " + shardId);
    }
  }

  @Test
  void anEntityManagerOpenedInsideAShardContextIsRouted() throws SQLException {
    long m = 11;
    try (ShardContext.Scope scope = shards.contextForKey(m)) {
      EntityManager em = unit.sessionFactory().createEntityManager();
      try {
        em.getTransaction().begin();
        em.persist(new Merchant(m, "Eleven", null));
        em.getTransaction().commit();
      } finally {
        em.close();
      }
    }
    int owner = unit.indexFor(m);
    assertEquals(List.of(owner), unit.shardsHolding("SELECT count(*) FROM merchant WHERE id = ?", m));
    try (ShardContext.Scope scope = ShardContext.use(shards.shardFor(m));
        Session session = unit.sessionFactory().openSession()) {
      assertEquals("Eleven", session.find(Merchant.class, m).getName());
    }
  }

  @Test
  void keysOfEveryJavaTypeRouteLikeTheSameValue() {
    assertEquals(shards.shardFor(42L), shards.shardFor(42));
    assertEquals(shards.shardFor(42L), shards.shardFor((short) 42));
    if (layout.strategy() == Layout.Strategy.RANGE) {
      ShardKeyException e = assertThrows(ShardKeyException.class, () -> shards.shardFor("merchant-42"));
      assertTrue(e.getMessage().contains("short, int and long keys only"), e.getMessage());
    } else {
      assertTrue(layout.shardIds().contains(shards.shardFor("merchant-42")), shards.shardFor("merchant-42"));
    }
  }
}
