package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.shardwise.hibernate.harness.Layout;
import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.hibernate.transaction.ReferenceTableWriteException;
import jakarta.persistence.PersistenceException;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Writes that would put a row on the wrong shard are refused before any SQL, and nothing is written.
 * Run on every layout by {@link CoreMatrixTest}.
 */
abstract class ShardGuardCases extends MatrixCases {

  /** A key that shard0 does not own (the layout has more than one shard). */
  private long foreignKeyForShard0() {
    assumeTrue(layout.shards() > 1, "one shard owns every key");
    return unit.keyNotOn("shard0");
  }

  @Test
  void persistWithAKeyOfAnotherShardIsRefused() throws SQLException {
    long key = foreignKeyForShard0();
    ShardKeyException e = assertThrows(ShardKeyException.class, () -> shards.forShard("shard0")
        .inTransaction(s -> s.persist(new Merchant(key, "misplaced", null))));

    assertTrue(e.getMessage().startsWith("[ShardKeyMismatch]"), e.getMessage());
    assertTrue(e.getMessage().contains("shard '" + shards.shardFor(key) + "'"), e.getMessage());
    assertTrue(e.getMessage().contains("shards.forKey(" + key + ")"), e.getMessage());
    assertEquals(List.of(), shardsHolding("SELECT count(*) FROM merchant WHERE id = ?", key));
  }

  @Test
  void mergeOfADetachedEntityWithAForeignKeyIsRefused() throws SQLException {
    long key = foreignKeyForShard0();
    ShardKeyException e = assertThrows(ShardKeyException.class, () -> shards.forShard("shard0")
        .inTransaction(s -> s.merge(new Merchant(key, "detached", null))));
    assertTrue(e.getMessage().startsWith("[ShardKeyMismatch] Cannot merge Merchant"), e.getMessage());
    assertEquals(List.of(), shardsHolding("SELECT count(*) FROM merchant WHERE id = ?", key));
  }

  @Test
  void aNullShardKeyIsRefused() throws SQLException {
    PurchaseOrder order = new PurchaseOrder(1, 1, "nobody");
    order.setMerchantId(null);
    ShardKeyException e = assertThrows(ShardKeyException.class,
        () -> shards.forShard("shard0").inTransaction(s -> s.persist(order)));
    assertTrue(e.getMessage().startsWith("[ShardKeyNull] Cannot persist PurchaseOrder"), e.getMessage());
    assertTrue(e.getMessage().contains("PurchaseOrder.merchantId is null"), e.getMessage());
    assertEquals(List.of(), shardsHolding("SELECT count(*) FROM purchase_order"));
  }

  @Test
  void aChangedShardKeyIsRefusedAtFlushAndTheRowStaysAsCommitted() throws SQLException {
    long m = 5;
    shards.forKey(m).inTransaction(s -> s.persist(new PurchaseOrder(50, m, "Ada")));
    int home = unit.indexFor(m);

    ShardKeyException e = assertThrows(ShardKeyException.class, () -> shards.forKey(m).inTransaction(s -> {
      PurchaseOrder order = s.find(PurchaseOrder.class, 50L);
      order.setMerchantId(6L);
    }));

    assertTrue(e.getMessage().startsWith("[ShardKeyChanged] PurchaseOrder.merchantId changed from 5 to 6"),
        e.getMessage());
    assertEquals(List.of(home), shardsHolding("SELECT count(*) FROM purchase_order WHERE id = 50 AND merchant_id = 5"));
  }

  @Test
  void referenceTableWritesThroughAShardSessionAreRefused() throws SQLException {
    String last = Layout.shardId(layout.shards() - 1);
    ReferenceTableWriteException insert = assertThrows(ReferenceTableWriteException.class,
        () -> shards.forShard(last).inTransaction(s -> s.persist(new Country("DE", "Germany"))));
    assertTrue(insert.getMessage().startsWith("[ReferenceTableWrite] Cannot persist Country"), insert.getMessage());

    assertEquals("United Kingdom", shards.forShard(last).fromTransaction(s -> s.find(Country.class, "GB").getName()),
        "reading a reference table is fine");

    PersistenceException dirty = assertThrows(PersistenceException.class,
        () -> shards.forShard(last).inTransaction(s -> renameCountry(s.find(Country.class, "GB"))));
    assertTrue(dirty instanceof ReferenceTableWriteException, dirty.toString());

    assertThrows(ReferenceTableWriteException.class,
        () -> shards.forShard(last).inTransaction(s -> s.remove(s.find(Country.class, "GB"))));

    assertEquals(layout.shardIds().stream().map(Layout::indexOf).toList(),
        shardsHolding("SELECT count(*) FROM country WHERE code = 'GB' AND name = 'United Kingdom'"));
    assertEquals(List.of(), shardsHolding("SELECT count(*) FROM country WHERE code = 'DE'"));
  }

  private List<Integer> shardsHolding(String sql, Object... args) throws SQLException {
    return unit.shardsHolding(sql, args);
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
