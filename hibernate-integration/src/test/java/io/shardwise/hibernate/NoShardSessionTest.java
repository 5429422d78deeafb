package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.spi.ShardContextResolver;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * writes them on every shard at commit, and refuses a statement on a sharded entity that names no
 * key by name before any SQL (pg_stat_statements on every server shows none of them arrived). A
 * key binds it to that key's shard: {@link FirstKeyBindingTest}.
 */
@ShardedPostgres(shards = 2, replicas = 1, settings = "shared_preload_libraries=pg_stat_statements")
class NoShardSessionTest {
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;

  @BeforeAll
  static void start(PostgresTopology pg) throws Exception {
    Shardwise.Builder builder = ShopFixture.builder(pg).schema("create")
        .controlDatabase(pg.shard(0).primary().jdbcUrl(), true);
    for (PostgresShard shard : pg.shards()) {
      builder.replica(ShopFixture.shardId(shard.index()), shard.replica(0).jdbcUrl());
    }
    sessionFactory = builder.buildSessionFactory();
    shards = ShardedSessions.of(sessionFactory);
    ShopFixture.executeOnEveryShard(pg, "INSERT INTO country (code, name) VALUES ('GB', 'United Kingdom')");
    ShopFixture.executeOnEveryShard(pg, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
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
  void aStatementOnAShardedEntityThatNamesNoKeyIsRefusedByName() {
    try (Session session = sessionFactory.openSession()) {
      // an order's id is not its key
      NoShardSelectedException byId = assertThrows(NoShardSelectedException.class,
          () -> session.find(PurchaseOrder.class, 7001L));
      assertTrue(byId.getMessage().startsWith("[NoShardSelected] PurchaseOrder"), byId.getMessage());
      assertTrue(byId.getMessage().contains("Nothing was sent"), byId.getMessage());
    }
  }

  @Test
  void nativeSqlThatPinsTheKeyBindsTheSessionToTheKeysShard() {
    try (Session session = sessionFactory.openSession()) {
      session.createNativeQuery("select * from purchase_order where merchant_id = 7", PurchaseOrder.class)
          .getResultList();
      assertEquals(shards.shardFor(7L), ShardedSessions.shardOf(session), "the key in the SQL bound the session");
    }
  }

  @Test
  void aWriteOfAShardedEntityWithoutItsKeyIsRefusedBeforeTheInsert(PostgresTopology pg) throws Exception {
    try (Session session = sessionFactory.openSession()) {
      session.beginTransaction();
      PurchaseOrder keyless = new PurchaseOrder(88L, 7L, "ann");
      keyless.setMerchantId(null);
      ShardKeyException e = assertThrows(ShardKeyException.class, () -> session.persist(keyless));
      assertTrue(e.getMessage().startsWith("[ShardKeyNull] Cannot persist PurchaseOrder"), e.getMessage());
      assertNull(ShardedSessions.shardOf(session), "a refused write binds nothing");
      session.getTransaction().rollback();
    }
    for (PostgresShard shard : pg.shards()) {
      assertEquals(0, ShopFixture.count(shard, "SELECT count(*) FROM purchase_order WHERE id = 88"));
    }
  }

  @Test
  void referenceWritesWithoutAShardReachEveryShardAtCommitAndARollbackWritesNothing(PostgresTopology pg)
      throws Exception {
    String portugal = "SELECT count(*) FROM country WHERE code = 'PT'";
    try (Session session = sessionFactory.openSession()) {
      session.beginTransaction();
      session.persist(new Country("PT", "Portugal"));
      session.flush();
      assertEquals(List.of(), ShopFixture.shardsHolding(pg, portugal), "held back until the commit");
      session.getTransaction().commit();
    }
    assertEquals(List.of(0, 1), ShopFixture.shardsHolding(pg, portugal), "inserted on every shard");

    EntityManager em = sessionFactory.createEntityManager();
    em.getTransaction().begin();
    em.merge(new Country("PT", "Portuguese Republic"));
    em.getTransaction().commit();
    em.close();
    assertEquals(List.of(0, 1), ShopFixture.shardsHolding(pg,
        "SELECT count(*) FROM country WHERE code = 'PT' AND name = 'Portuguese Republic'"), "updated on every shard");

    try (Session session = sessionFactory.openSession()) {
      session.beginTransaction();
      session.persist(new Country("ES", "Spain"));
      session.flush();
      session.getTransaction().rollback();
    }
    assertEquals(List.of(), ShopFixture.shardsHolding(pg, "SELECT count(*) FROM country WHERE code = 'ES'"));

    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
    try (Session session = sessionFactory.openSession()) {
      session.beginTransaction();
      session.remove(session.find(Country.class, "PT"));
      session.getTransaction().commit();
    }
    assertEquals(List.of(), ShopFixture.shardsHolding(pg, portugal), "removed from every shard");
    assertTrue(shards.referenceTables().check().consistent());
  }

  @Test
  void refusedStatementsOnShardedEntitiesNeverReachAServer(PostgresTopology pg) throws Exception {
    forEveryServer(pg, "SELECT pg_stat_statements_reset()");
    try (Session session = sessionFactory.openSession()) {
      NoShardSelectedException byId = assertThrows(NoShardSelectedException.class,
          () -> session.find(PurchaseOrder.class, 7001L));
      assertTrue(byId.getMessage().contains("PurchaseOrder"), byId.getMessage());
      assertThrows(ShardKeyMissingException.class,
          () -> session.createNativeQuery("select count(*) from purchase_order", Long.class).getSingleResult());
      // a query that pins no key is refused as in any session, when it is created
      assertThrows(ShardKeyMissingException.class,
          () -> session.createSelectionQuery("from PurchaseOrder where customer = 'ann'", PurchaseOrder.class));
    }
    assertEquals(0, statementsOnShardedTables(pg), "no statement on a sharded table reached any server");

    // the instrument sees a statement that is sent: the same query routed by its key
    shards.forKey(7L).readOnly().inSession(session -> session
        .createSelectionQuery("from PurchaseOrder where merchantId = :m", PurchaseOrder.class)
        .setParameter("m", 7L).getResultList());
    assertEquals(1, statementsOnShardedTables(pg));
  }

  @Test
  void aPlainJpaEntityManagerFactoryOpensEntityManagersWithoutAShard(PostgresTopology pg) {
    Map<String, Object> overrides = new HashMap<>();
    overrides.put(ShardwiseSettings.SHARDS, ShopFixture.shardId(0) + "," + ShopFixture.shardId(1));
    for (PostgresShard shard : pg.shards()) {
      overrides.put(ShardwiseSettings.SHARD_PREFIX + ShopFixture.shardId(shard.index()) + ".url",
          shard.primary().jdbcUrl());
    }
    EntityManagerFactory emf = Persistence.createEntityManagerFactory("shop", overrides);
    try {
      EntityManager em = emf.createEntityManager();
      try {
        assertEquals("United Kingdom", em.find(Country.class, "GB").getName());
        ShardKeyMissingException e = assertThrows(ShardKeyMissingException.class,
            () -> em.createNativeQuery("select * from merchant", Merchant.class).getResultList());
        assertTrue(e.getMessage().contains("merchant"), e.getMessage());
        assertEquals("seven", em.createQuery("select m from Merchant m where m.id = 7", Merchant.class)
            .getSingleResult().getName(), "the key binds the entity manager to its shard");
      } finally {
        em.close();
      }
    } finally {
      emf.close();
    }
  }

  private static void forEveryServer(PostgresTopology pg, String sql) throws SQLException {
    for (PostgresShard shard : pg.shards()) {
      for (var node : shard.nodes()) {
        try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement()) {
          s.execute(sql);
        }
      }
    }
  }

  /** Statements on the shop's sharded tables that completed on any server since the last reset. */
  private static long statementsOnShardedTables(PostgresTopology pg) throws SQLException {
    long total = 0;
    for (PostgresShard shard : pg.shards()) {
      for (var node : shard.nodes()) {
        try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement();
            ResultSet rs = s.executeQuery("SELECT coalesce(sum(calls), 0) FROM pg_stat_statements"
                + " WHERE query ~* '(from|join|into|update) (purchase_order|merchant)\\M'")) {
          rs.next();
          total += rs.getLong(1);
        }
      }
    }
    return total;
  }

  @Test
  void aShardContextStillRoutesSessionsOpenedTheOrdinaryWay() {
    try (ShardContext.Scope scope = shards.contextForKey(7L); Session session = sessionFactory.openSession()) {
      assertEquals(shards.shardFor(7L), session.getTenantIdentifier());
      assertEquals("seven", session.find(Merchant.class, 7L).getName());
    }
  }
}
