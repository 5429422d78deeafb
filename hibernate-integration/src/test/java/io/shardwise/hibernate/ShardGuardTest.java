package io.shardwise.hibernate;

import static io.shardwise.hibernate.ShopFixture.shardsHolding;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.hibernate.transaction.ReferenceTableWriteException;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import jakarta.persistence.PersistenceException;
import java.sql.SQLException;
import java.util.List;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Writes that would put a row on the wrong shard are refused before any SQL, and nothing is written. */
@ShardedPostgres(shards = 3, scope = ShardedPostgres.Scope.RUN)
class ShardGuardTest {
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;

  @BeforeAll
  static void start(PostgresTopology pg) {
    sessionFactory = ShopFixture.sessionFactory(pg, "create");
    shards = ShardedSessions.of(sessionFactory);
  }

  @AfterAll
  static void stop() {
    sessionFactory.close();
  }

  @BeforeEach
  void emptyTables(PostgresTopology pg) throws SQLException {
    ShopFixture.executeOnEveryShard(pg, "TRUNCATE order_item, purchase_order, merchant, country");
    ShopFixture.executeOnEveryShard(pg, "INSERT INTO country (code, name) VALUES ('GB', 'United Kingdom')");
  }

  /** A key that shard0 does not own. */
  private static long foreignKeyForShard0() {
    for (long k = 1; ; k++) {
      if (!shards.shardFor(k).equals("shard0")) {
        return k;
      }
    }
  }

  @Test
  void persistWithAKeyOfAnotherShardIsRefused(PostgresTopology pg) throws SQLException {
    long key = foreignKeyForShard0();
    ShardKeyException e = assertThrows(ShardKeyException.class, () -> shards.forShard("shard0")
        .inTransaction(s -> s.persist(new Merchant(key, "misplaced", null))));

    assertTrue(e.getMessage().startsWith("[ShardKeyMismatch]"), e.getMessage());
    assertTrue(e.getMessage().contains("shard '" + shards.shardFor(key) + "'"), e.getMessage());
    assertTrue(e.getMessage().contains("shards.forKey(" + key + ")"), e.getMessage());
    assertEquals(List.of(), shardsHolding(pg, "SELECT count(*) FROM merchant WHERE id = ?", key));
  }

  @Test
  void mergeOfADetachedEntityWithAForeignKeyIsRefused(PostgresTopology pg) throws SQLException {
    long key = foreignKeyForShard0();
    ShardKeyException e = assertThrows(ShardKeyException.class, () -> shards.forShard("shard0")
        .inTransaction(s -> s.merge(new Merchant(key, "detached", null))));
    assertTrue(e.getMessage().startsWith("[ShardKeyMismatch] Cannot merge Merchant"), e.getMessage());
    assertEquals(List.of(), shardsHolding(pg, "SELECT count(*) FROM merchant WHERE id = ?", key));
  }

  @Test
  void aNullShardKeyIsRefused(PostgresTopology pg) throws SQLException {
    PurchaseOrder order = new PurchaseOrder(1, 1, "nobody");
    order.setMerchantId(null);
    ShardKeyException e = assertThrows(ShardKeyException.class,
        () -> shards.forShard("shard0").inTransaction(s -> s.persist(order)));
    assertTrue(e.getMessage().startsWith("[ShardKeyNull] Cannot persist PurchaseOrder"), e.getMessage());
    assertTrue(e.getMessage().contains("PurchaseOrder.merchantId is null"), e.getMessage());
    assertEquals(List.of(), shardsHolding(pg, "SELECT count(*) FROM purchase_order"));
  }

  @Test
  void aChangedShardKeyIsRefusedAtFlushAndTheRowStaysAsCommitted(PostgresTopology pg) throws SQLException {
    long m = 5;
    shards.forKey(m).inTransaction(s -> s.persist(new PurchaseOrder(50, m, "Ada")));
    int home = Integer.parseInt(shards.shardFor(m).substring(5));

    ShardKeyException e = assertThrows(ShardKeyException.class, () -> shards.forKey(m).inTransaction(s -> {
      PurchaseOrder order = s.find(PurchaseOrder.class, 50L);
      order.setMerchantId(6L);
    }));

    assertTrue(e.getMessage().startsWith("[ShardKeyChanged] PurchaseOrder.merchantId changed from 5 to 6"),
        e.getMessage());
    assertEquals(List.of(home), shardsHolding(pg, "SELECT count(*) FROM purchase_order WHERE id = 50 AND merchant_id = 5"));
  }

  @Test
  void referenceTableWritesThroughAShardSessionAreRefused(PostgresTopology pg) throws SQLException {
    ReferenceTableWriteException insert = assertThrows(ReferenceTableWriteException.class,
        () -> shards.forShard("shard1").inTransaction(s -> s.persist(new Country("DE", "Germany"))));
    assertTrue(insert.getMessage().startsWith("[ReferenceTableWrite] Cannot persist Country"), insert.getMessage());

    assertEquals("United Kingdom", shards.forShard("shard1").fromTransaction(s -> s.find(Country.class, "GB").getName()),
        "reading a reference table is fine");

    PersistenceException dirty = assertThrows(PersistenceException.class,
        () -> shards.forShard("shard1").inTransaction(s -> renameCountry(s.find(Country.class, "GB"))));
    assertTrue(dirty instanceof ReferenceTableWriteException, dirty.toString());

    assertThrows(ReferenceTableWriteException.class,
        () -> shards.forShard("shard1").inTransaction(s -> s.remove(s.find(Country.class, "GB"))));

    assertEquals(List.of(0, 1, 2), shardsHolding(pg, "SELECT count(*) FROM country WHERE code = 'GB' AND name = 'United Kingdom'"));
    assertEquals(List.of(), shardsHolding(pg, "SELECT count(*) FROM country WHERE code = 'DE'"));
  }

  private static void renameCountry(Country country) {
    try {
      var name = Country.class.getDeclaredField("name");
      name.setAccessible(true);
      name.set(country, "Renamed");
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }
}
