package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.time.Duration;
import java.util.List;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A session opened without a shard binds to the shard of the first key it uses — {@code find} by
 * key, a query that pins the key, {@code persist} — and from then on works there like a session
 * opened on that shard: the server that answers (inet_server_port, pg_is_in_recovery) is that
 * shard's primary, or its replica for a read-only session; another shard's key is refused; a
 * session that wrote never moves.
 */
@ShardedPostgres(shards = 2, replicas = 1)
class FirstKeyBindingTest {
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;
  private static long onFirst;
  private static long onSecond;

  @BeforeAll
  static void start(PostgresTopology pg) throws Exception {
    Shardwise.Builder builder = ShopFixture.builder(pg).schema("create");
    for (PostgresShard shard : pg.shards()) {
      builder.replica(ShopFixture.shardId(shard.index()), shard.replica(0).jdbcUrl());
    }
    sessionFactory = builder.buildSessionFactory();
    shards = ShardedSessions.of(sessionFactory);
    ShopFixture.executeOnEveryShard(pg, "INSERT INTO country (code, name) VALUES ('GB', 'United Kingdom')");
    onFirst = keyOn(0, 1);
    onSecond = keyOn(1, 1);
    for (long key : new long[] {onFirst, onSecond}) {
      shards.forKey(key).inTransaction(session -> {
        session.persist(new Merchant(key, "merchant " + key, session.getReference(Country.class, "GB")));
        session.persist(new PurchaseOrder(key * 10, key, "ann"));
      });
    }
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
    shards.checkReplicasNow();
  }

  @AfterAll
  static void stop() {
    sessionFactory.close();
  }

  private static long keyOn(int shardIndex, long from) {
    long key = from;
    while (!shards.shardFor(key).equals(ShopFixture.shardId(shardIndex))) {
      key++;
    }
    return key;
  }

  private static int port(Session session) {
    return session.createNativeQuery("select inet_server_port()", Integer.class).getSingleResult();
  }

  private static boolean onReplica(Session session) {
    return session.createNativeQuery("select pg_is_in_recovery()", Boolean.class).getSingleResult();
  }

  @Test
  void findByKeyBindsTheSessionToTheKeysPrimary(PostgresTopology pg) {
    for (int index = 0; index < 2; index++) {
      long key = index == 0 ? onFirst : onSecond;
      try (Session session = sessionFactory.openSession()) {
        session.beginTransaction();
        assertNull(ShardedSessions.shardOf(session), "no shard before the first key");
        assertNotNull(session.find(Merchant.class, key));
        assertEquals(ShopFixture.shardId(index), ShardedSessions.shardOf(session));
        assertEquals(pg.shard(index).primary().port(), port(session), "the key's primary answers");
        session.getTransaction().commit();
      }
    }
  }

  @Test
  void aQueryThatPinsTheKeyBindsBeforeItIsSent(PostgresTopology pg) {
    try (Session session = sessionFactory.openSession()) {
      List<PurchaseOrder> orders = session.createSelectionQuery("from PurchaseOrder where merchantId = :m",
          PurchaseOrder.class).setParameter("m", onSecond).getResultList();
      assertEquals(List.of(onSecond * 10), orders.stream().map(PurchaseOrder::getId).toList());
      assertEquals(pg.shard(1).primary().port(), port(session));
    }
    try (Session session = sessionFactory.openSession()) {
      List<Merchant> literal = session.createSelectionQuery("from Merchant where id = " + onFirst, Merchant.class)
          .getResultList();
      assertEquals(1, literal.size(), "a literal pin binds too");
      assertEquals(pg.shard(0).primary().port(), port(session));
    }
  }

  @Test
  void persistBindsAndTheRowLandsOnTheKeysShardOnly(PostgresTopology pg) throws Exception {
    long key = keyOn(1, onSecond + 1);
    try (Session session = sessionFactory.openSession()) {
      session.beginTransaction();
      session.persist(new Merchant(key, "new", null));
      session.persist(new PurchaseOrder(key * 10, key, "bob"));
      assertEquals(ShopFixture.shardId(1), ShardedSessions.shardOf(session));
      session.getTransaction().commit();
    }
    assertEquals(List.of(1), ShopFixture.shardsHolding(pg, "SELECT count(*) FROM merchant WHERE id = ?", key));
    assertEquals(List.of(1), ShopFixture.shardsHolding(pg, "SELECT count(*) FROM purchase_order WHERE merchant_id = ?",
        key));
  }

  @Test
  void referenceReadsComeFirstFromAReplicaThenTheKeyMovesTheTransactionToItsPrimary(PostgresTopology pg) {
    try (Session session = sessionFactory.openSession()) {
      session.beginTransaction();
      assertEquals("United Kingdom", session.find(Country.class, "GB").getName());
      assertTrue(onReplica(session), "before any key: a replica serves the reference read");
      assertNull(ShardedSessions.shardOf(session));
      Merchant merchant = session.find(Merchant.class, onSecond);
      assertEquals(pg.shard(1).primary().port(), port(session));
      merchant.setName("renamed by a late-bound session");
      session.getTransaction().commit();
    }
    assertEquals("renamed by a late-bound session",
        shards.forKey(onSecond).fromSession(s -> s.find(Merchant.class, onSecond).getName()));
  }

  @Test
  void aSecondKeyOnAnotherShardIsRefused() {
    try (Session session = sessionFactory.openSession()) {
      session.find(Merchant.class, onFirst);
      ShardKeyException find = assertThrows(ShardKeyException.class, () -> session.find(Merchant.class, onSecond));
      assertTrue(find.getMessage().startsWith("[ShardKeyOnOtherShard]"), find.getMessage());
      ShardKeyException query = assertThrows(ShardKeyException.class, () -> session.createSelectionQuery(
          "from PurchaseOrder where merchantId = :m", PurchaseOrder.class).setParameter("m", onSecond).getResultList());
      assertTrue(query.getMessage().startsWith("[ShardKeyOnOtherShard]"), query.getMessage());
      assertEquals(ShopFixture.shardId(0), ShardedSessions.shardOf(session), "still on the first key's shard");
    }
    try (Session session = sessionFactory.openSession()) {
      ShardKeyException inList = assertThrows(ShardKeyException.class, () -> session.createSelectionQuery(
          "from PurchaseOrder where merchantId in :m", PurchaseOrder.class).setParameter("m", List.of(onFirst,
              onSecond)).getResultList());
      assertTrue(inList.getMessage().startsWith("[ShardKeyOnOtherShard]"), inList.getMessage());
    }
  }

  @Test
  void aReadOnlySessionBindsToAReplicaOfTheKeysShard(PostgresTopology pg) {
    for (int index = 0; index < 2; index++) {
      long key = index == 0 ? onFirst : onSecond;
      try (Session session = sessionFactory.withOptions().readOnly(true).openSession()) {
        assertNotNull(session.find(Merchant.class, key));
        assertTrue(onReplica(session));
        assertEquals(pg.shard(index).replica(0).port(), port(session), "the replica of the key's shard");
      }
    }
  }

  @Test
  void aSessionThatWroteNeverMoves(PostgresTopology pg) throws Exception {
    try (Session session = sessionFactory.openSession()) {
      session.beginTransaction();
      session.persist(new Country("NL", "Netherlands"));
      session.flush();
      NoShardSelectedException afterWrite = assertThrows(NoShardSelectedException.class,
          () -> session.find(Merchant.class, onFirst));
      assertTrue(afterWrite.getMessage().startsWith("[BindAfterWrite]"), afterWrite.getMessage());
      assertNull(ShardedSessions.shardOf(session));
      session.getTransaction().rollback();
    }

    // bound by a write in its first transaction, the session stays on that shard in the next one,
    // on a new connection (plain Hibernate releases it after each transaction)
    long key = keyOn(0, onFirst + 1);
    try (Session session = sessionFactory.openSession()) {
      session.beginTransaction();
      session.persist(new Merchant(key, "first transaction", null));
      session.getTransaction().commit();
      session.beginTransaction();
      assertEquals(pg.shard(0).primary().port(), port(session), "a new connection on the bound shard");
      assertThrows(ShardKeyException.class, () -> session.find(Merchant.class, onSecond));
      assertThrows(ShardKeyException.class, () -> session.persist(new Merchant(keyOn(1, onSecond + 100), "x", null)));
      session.getTransaction().rollback();
    }
    assertEquals(List.of(0), ShopFixture.shardsHolding(pg, "SELECT count(*) FROM merchant WHERE id = ?", key));
  }

  @Test
  void shardedSqlThatNamesNoKeyIsRefusedInAnUnboundSessionWithNothingSent() {
    try (Session session = sessionFactory.openSession()) {
      // native SQL that pins no key is refused as it is in any session, before the session's shard matters
      ShardKeyMissingException e = assertThrows(ShardKeyMissingException.class,
          () -> session.createNativeQuery("select count(*) from purchase_order", Long.class).getSingleResult());
      assertTrue(e.getMessage().contains("purchase_order"), e.getMessage());
      // an order's id is not its key: a find by it names no shard
      NoShardSelectedException byId = assertThrows(NoShardSelectedException.class,
          () -> session.find(PurchaseOrder.class, 1L));
      assertTrue(byId.getMessage().contains("PurchaseOrder"), byId.getMessage());
      assertTrue(byId.getMessage().contains("binds to the shard of the first key"), byId.getMessage());
      // the refusal leaves the session unbound and usable: a key binds it
      assertNotNull(session.find(Merchant.class, onSecond));
      assertEquals(1L, session.createNativeQuery("select count(*) from purchase_order where merchant_id = "
          + onSecond, Long.class).getSingleResult(), "native SQL runs on the bound shard");
    }
  }
}
