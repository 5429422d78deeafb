package io.shardwise.hibernate;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.routing.ControlDatabase;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.Persistence;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/** The ways to start Shardwise: persistence.xml, the fluent builder, a control database; and schema checks. */
@ShardedPostgres(shards = 3, scope = ShardedPostgres.Scope.RUN)
class BootstrapTest {

  @Test
  void persistenceXmlWithOrdinaryJpaPropertiesRoutesEntityManagers(PostgresTopology pg) throws SQLException {
    Map<String, Object> overrides = new HashMap<>();
    overrides.put(ShardwiseSettings.SHARDS, "shard0,shard1,shard2");
    for (PostgresShard shard : pg.shards()) {
      overrides.put(ShardwiseSettings.SHARD_PREFIX + "shard" + shard.index() + ".url", shard.primary().jdbcUrl());
    }
    EntityManagerFactory emf = Persistence.createEntityManagerFactory("shop", overrides);
    try {
      ShardedSessions shards = ShardedSessions.of(emf);
      long id = 90_001;
      try (ShardContext.Scope scope = shards.contextForKey(id)) {
        EntityManager em = emf.createEntityManager();
        em.getTransaction().begin();
        em.merge(new Merchant(id, "via persistence.xml", null));
        em.getTransaction().commit();
        em.close();
      }
      int owner = Integer.parseInt(shards.shardFor(id).substring(5));
      assertEquals(List.of(owner), ShopFixture.shardsHolding(pg, "SELECT count(*) FROM merchant WHERE id = ?", id));
    } finally {
      emf.close();
    }
  }

  @Test
  void validateFailsNamingTheShardWhoseSchemaDiffers(PostgresTopology pg) throws SQLException {
    ShopFixture.sessionFactory(pg, "create").close();
    ShopFixture.sessionFactory(pg, "validate").close();

    ShopFixture.executeOnEveryShard(pg, "SELECT 1");
    try (var c = pg.shard(2).primary().dataSource().getConnection(); var s = c.createStatement()) {
      s.execute("DROP TABLE order_item");
    }
    ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class,
        () -> ShopFixture.sessionFactory(pg, "validate").close());
    assertTrue(e.getMessage().startsWith("Schema validate failed on shard 'shard2'"), e.getMessage());

    ShopFixture.sessionFactory(pg, "update").close();
    ShopFixture.sessionFactory(pg, "validate").close();
  }

  @Test
  void aBadScatterThreadCountFailsTheBuildBeforeAnythingConnects(PostgresTopology pg) throws SQLException {
    // a fresh control database: initialising it is the first thing a started runtime would do
    String database = "control_never_touched";
    try (var c = pg.shard(0).primary().dataSource().getConnection(); var s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + database);
      s.execute("CREATE DATABASE " + database);
    }
    String controlUrl = pg.shard(0).primary().jdbcUrl(database);
    Shardwise.Builder builder = ShopFixture.builder(pg)
        .property("hibernate.persistenceUnitName", "bad-scatter")
        .controlDatabase(controlUrl, true)
        .schema("create")
        .property(ShardwiseSettings.SCATTER_THREADS, "0");

    ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class,
        () -> builder.buildSessionFactory().close());
    assertTrue(e.getMessage().startsWith("Shardwise configuration of persistence unit 'bad-scatter' is invalid"),
        e.getMessage());
    assertTrue(e.getMessage().contains("shardwise.scatter.threads = 0 is outside 1..1024"), e.getMessage());
    try (var c = java.sql.DriverManager.getConnection(controlUrl, "postgres", null); var s = c.createStatement();
        var rs = s.executeQuery("SELECT count(*) FROM pg_namespace WHERE nspname = 'shardwise'")) {
      rs.next();
      assertEquals(0, rs.getLong(1), "the control database was never initialised: nothing connected to it");
    }
  }

  @Test
  void poolsOpenOnFirstUseAndThenKeepTheConfiguredIdleConnections(PostgresTopology pg) throws SQLException {
    String tag = "bootstrap-min-idle";
    Shardwise.Builder builder = Shardwise.configure().credentials("postgres", null).entities(ShopFixture.ENTITIES)
        .property(ShardwiseSettings.POOL_MIN_IDLE, "3");
    for (PostgresShard shard : pg.shards()) {
      builder.shard(ShopFixture.shardId(shard.index()), shard.primary().jdbcUrl() + "?ApplicationName=" + tag);
    }
    try (SessionFactory sf = builder.buildSessionFactory()) {
      ShardedSessions.of(sf).forShard("shard2").inSession(s -> s.createNativeQuery("SELECT 1", Integer.class)
          .getSingleResult());
      // the pool's 3 idle connections, and the replica monitor's one to a primary a session used
      // (it watches that primary so that a freeze releases the session's callers); its URL, and so
      // its application name, is the pool's
      await().atMost(Duration.ofSeconds(10)).until(() -> connectionsTagged(pg.shard(2), tag) >= 3);
      long opened = connectionsTagged(pg.shard(2), tag);
      assertTrue(opened == 3 || opened == 4, opened + " connections: 3 idle in the pool, at most 1 of the monitor");
      assertEquals(0, connectionsTagged(pg.shard(1), tag),
          "no session has needed shard1 yet: neither its pool nor the monitor connected to it");
    }
  }

  private static long connectionsTagged(PostgresShard shard, String applicationName) throws SQLException {
    return ShopFixture.count(shard, "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?",
        applicationName);
  }

  @Test
  void aShardMapChangeInTheControlDatabaseReroutesRunningSessionFactories(PostgresTopology pg) {
    String controlUrl = pg.shard(0).primary().jdbcUrl();
    ControlDatabase control = new ControlDatabase(controlUrl, "postgres", null);
    control.createSchema();
    try (var c = pg.shard(0).primary().dataSource().getConnection(); var s = c.createStatement()) {
      s.execute("TRUNCATE shardwise.bucket, shardwise.shard CASCADE");
      s.execute("DELETE FROM shardwise.map_version");
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
    try (SessionFactory a = ShopFixture.builder(pg).controlDatabase(controlUrl, true).schema("update").buildSessionFactory();
        SessionFactory b = ShopFixture.builder(pg).controlDatabase(controlUrl, false).buildSessionFactory()) {
      ShardedSessions shardsA = ShardedSessions.of(a);
      ShardedSessions shardsB = ShardedSessions.of(b);
      long key = 4242;
      String before = shardsA.shardFor(key);
      assertEquals(before, shardsB.shardFor(key));

      ShardMap map = shardsA.shardMap();
      int bucket = io.shardwise.hibernate.routing.BucketStrategy.bucketOf(
          io.shardwise.hibernate.routing.ShardKeyType.LONG.hash(key), map.bucketCount());
      String target = before.equals("shard0") ? "shard1" : "shard0";
      long changedAt = System.nanoTime();
      control.assignBuckets(Map.of(bucket, target));

      await().atMost(Duration.ofSeconds(5)).until(() -> shardsA.shardFor(key).equals(target)
          && shardsB.shardFor(key).equals(target));
      System.out.printf("[BootstrapTest] bucket %d moved %s -> %s; both session factories routed to it after %d ms%n",
          bucket, before, target, (System.nanoTime() - changedAt) / 1_000_000);
    }
  }
}
