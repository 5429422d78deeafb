package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.spi.ShardContextResolver;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A session opened with no shard (no ShardContext, no key), as Spring Data's repository bootstrap
 * and {@code @DataJpaTest} open one: it opens, reads reference tables from replicas of any shard,
 * and refuses sharded entities by name before any SQL.
 */
@ShardedPostgres(shards = 2, replicas = 1)
class NoShardSessionTest {
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;

  @BeforeAll
  static void start(PostgresTopology pg) throws Exception {
    Shardwise.Builder builder = ShopFixture.builder(pg).schema("create");
    for (PostgresShard shard : pg.shards()) {
      builder.replica(ShopFixture.shardId(shard.index()), shard.replica(0).jdbcUrl());
    }
    sessionFactory = builder.buildSessionFactory();
    shards = ShardedSessions.of(sessionFactory);
    ShopFixture.executeOnEveryShard(pg, "INSERT INTO country (code, name) VALUES ('GB', 'United Kingdom')");
    shards.forKey(7L).inTransaction(session -> session.persist(new Merchant(7L, "seven", session.getReference(Country.class, "GB"))));
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
    shards.checkReplicasNow();
  }

  @AfterAll
  static void stop() {
    sessionFactory.close();
  }

  @Test
  void opensWithoutAShardAndReadsReferenceTablesFromReplicasOfEveryShard(PostgresTopology pg) {
    Set<Integer> ports = new HashSet<>();
    for (int i = 0; i < 4; i++) {
      try (Session session = sessionFactory.openSession()) {
        assertEquals(ShardContextResolver.NO_SHARD, session.getTenantIdentifier());
        Country gb = session.find(Country.class, "GB");
        assertNotNull(gb, "the reference row is on every shard");
        assertEquals("United Kingdom", gb.getName());
        assertEquals(Boolean.TRUE, session.createNativeQuery("select pg_is_in_recovery()", Boolean.class)
            .getSingleResult(), "a replica served the reference read");
        ports.add(session.createNativeQuery("select inet_server_port()", Integer.class).getSingleResult());
      }
    }
    Set<Integer> replicaPorts = new HashSet<>();
    pg.shards().forEach(s -> replicaPorts.add(s.replica(0).port()));
    assertEquals(replicaPorts, ports, "sessions without a shard take the shards' replicas in turn");
  }

  @Test
  void theFirstStatementOnAShardedEntityIsRefusedByName() {
    try (Session session = sessionFactory.openSession()) {
      NoShardSelectedException query = assertThrows(NoShardSelectedException.class, () -> session
          .createSelectionQuery("from PurchaseOrder where merchantId = :m", PurchaseOrder.class)
          .setParameter("m", 7L).getResultList());
      assertTrue(query.getMessage().startsWith("[NoShardSelected] PurchaseOrder (table purchase_order) is sharded by"
          + " PurchaseOrder.merchantId"), query.getMessage());
      assertTrue(query.getMessage().contains("Nothing was sent"), query.getMessage());

      NoShardSelectedException find = assertThrows(NoShardSelectedException.class,
          () -> session.find(Merchant.class, 7L));
      assertTrue(find.getMessage().contains("Merchant (table merchant)"), find.getMessage());
    }
  }

  @Test
  void aWriteOfAShardedEntityIsRefusedBeforeTheInsert(PostgresTopology pg) throws Exception {
    try (Session session = sessionFactory.openSession()) {
      session.beginTransaction();
      NoShardSelectedException e = assertThrows(NoShardSelectedException.class,
          () -> session.persist(new Merchant(8L, "eight", null)));
      assertTrue(e.getMessage().startsWith("[NoShardSelected] Cannot persist Merchant"), e.getMessage());
      session.getTransaction().rollback();
    }
    for (PostgresShard shard : pg.shards()) {
      assertEquals(0, ShopFixture.count(shard, "SELECT count(*) FROM merchant WHERE id = 8"));
    }
  }

  @Test
  void aShardContextStillRoutesSessionsOpenedTheOrdinaryWay() {
    try (ShardContext.Scope scope = shards.contextForKey(7L); Session session = sessionFactory.openSession()) {
      assertEquals(shards.shardFor(7L), session.getTenantIdentifier());
      assertEquals("seven", session.find(Merchant.class, 7L).getName());
    }
  }
}
