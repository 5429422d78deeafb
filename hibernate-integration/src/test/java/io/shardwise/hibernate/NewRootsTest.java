package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.newroots.Shelf;
import io.shardwise.hibernate.newroots.Shop;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * New roots in one call: {@code forNewRoot} picks a shard by weight, and the root's {@code @SnowflakeId}
 * gets an id that routes there; children persisted in the same session with the root's id as key
 * land beside it. Proved by reading each primary directly.
 */
@ShardedPostgres(shards = 3, scope = ShardedPostgres.Scope.RUN)
class NewRootsTest {
  private static PostgresTopology pg;
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;

  @BeforeAll
  static void start(PostgresTopology topology) {
    pg = topology;
    sessionFactory = builder(null).schema("create").buildSessionFactory();
    shards = ShardedSessions.of(sessionFactory);
  }

  @AfterAll
  static void stop() {
    if (sessionFactory != null) {
      sessionFactory.close();
    }
  }

  /** Shards s0, s1, s2 with weights 1, 1, 2; {@code readOnly} names a shard to mark READ_ONLY. */
  private static Shardwise.Builder builder(String readOnly) {
    Shardwise.Builder b = Shardwise.configure().credentials("postgres", null)
        .property("shardwise.snowflake.worker_id", "9").entities(Shop.class, Shelf.class);
    for (PostgresShard shard : pg.shards()) {
      b.shard("s" + shard.index(), shard.primary().jdbcUrl(), shard.index() == 2 ? 2 : 1);
    }
    if (readOnly != null) {
      b.property("shardwise.shard." + readOnly + ".state", "read_only");
    }
    return b;
  }

  @BeforeEach
  void empty() throws SQLException {
    for (PostgresShard shard : pg.shards()) {
      sql(shard, "DELETE FROM new_root_shelf; DELETE FROM new_root_shop");
    }
  }

  @Test
  void newRootsLandOnTheShardTheirIdRoutesToSpreadExactlyByWeight() throws SQLException {
    for (int i = 0; i < 100; i++) {
      int n = i;
      shards.forNewRoot(Shop.class).inTransaction(session -> {
        Shop shop = new Shop("shop " + n);
        session.persist(shop);
        session.persist(new Shelf(shop.getId(), "front"));
        session.persist(new Shelf(shop.getId(), "back"));
      });
    }
    Map<String, Set<Long>> stored = shopsByShard(shards);
    assertEquals(25, stored.get("s0").size(), "weight 1 of 4");
    assertEquals(25, stored.get("s1").size(), "weight 1 of 4");
    assertEquals(50, stored.get("s2").size(), "weight 2 of 4");
    for (PostgresShard shard : pg.shards()) {
      Set<Long> shelvesOf = new HashSet<>();
      int shelves = 0;
      try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT shop_id FROM new_root_shelf")) {
        while (rs.next()) {
          shelvesOf.add(rs.getLong(1));
          shelves++;
        }
      }
      assertEquals(stored.get("s" + shard.index()), shelvesOf, "every shelf beside its shop, on s" + shard.index());
      assertEquals(2 * shelvesOf.size(), shelves);
    }
  }

  @Test
  void aReadOnlyShardNeverGetsANewRoot() throws SQLException {
    try (SessionFactory readOnlyS2 = builder("s2").buildSessionFactory()) {
      ShardedSessions withReadOnly = ShardedSessions.of(readOnlyS2);
      for (int i = 0; i < 20; i++) {
        ShardRoute route = withReadOnly.forNewRoot(Shop.class);
        assertTrue(!route.shardId().equals("s2"), "the READ_ONLY shard was chosen");
        route.inTransaction(session -> session.persist(new Shop("r")));
      }
      Map<String, Set<Long>> stored = shopsByShard(withReadOnly);
      assertEquals(10, stored.get("s0").size());
      assertEquals(10, stored.get("s1").size());
      assertEquals(0, stored.get("s2").size());
    }
  }

  @Test
  void anIdTheApplicationSetIsKeptAndCheckedAgainstTheSession() throws SQLException {
    long onS1 = firstKeyOf("s1");
    Shop kept = shards.forKey(onS1).fromTransaction(session -> {
      Shop shop = new Shop(onS1, "assigned");
      session.persist(shop);
      return shop;
    });
    assertEquals(onS1, kept.getId(), "@SnowflakeId kept the assigned id");
    assertEquals(Set.of(onS1), shopsByShard(shards).get("s1"));

    long onS0 = firstKeyOf("s0");
    ShardKeyException wrong = assertThrows(ShardKeyException.class,
        () -> shards.forShard("s1").inTransaction(session -> session.persist(new Shop(onS0, "elsewhere"))));
    assertTrue(wrong.getMessage().startsWith("[ShardKeyMismatch]"), wrong.getMessage());
  }

  @Test
  void mergingAStoredRootWhoseRowIsGoneInsertsItUnderItsId() throws SQLException {
    Shop shop = shards.forNewRoot(Shop.class).fromTransaction(session -> {
      Shop s = new Shop("gone");
      session.persist(s);
      return s;
    });
    String shard = shards.shardFor(shop.getId());
    shards.forKey(shop.getId()).inTransaction(session -> session.remove(session.find(Shop.class, shop.getId())));
    shards.forKey(shop.getId()).inTransaction(session -> session.merge(shop));
    assertEquals(Set.of(shop.getId()), shopsByShard(shards).get(shard), "assigned ids are admitted, so merge inserts");
  }

  @Test
  void newRootsPersistedInSessionsWithoutAShardAreSpreadByWeightToo() throws SQLException {
    for (int i = 0; i < 100; i++) {
      try (Session session = sessionFactory.openSession()) {
        session.beginTransaction();
        Shop shop = new Shop("unrouted " + i);
        session.persist(shop);
        session.persist(new Shelf(shop.getId(), "front"));
        assertEquals(shards.shardFor(shop.getId()), ShardedSessions.shardOf(session), "bound where the id routes");
        session.getTransaction().commit();
      }
    }
    Map<String, Set<Long>> stored = shopsByShard(shards);
    assertEquals(List.of(25, 25, 50), List.of(stored.get("s0").size(), stored.get("s1").size(),
        stored.get("s2").size()), "weights 1:1:2");
  }

  @Test
  void aShardContextForANewRootRoutesOrdinarySessions() throws SQLException {
    Shop shop = new Shop("in a context");
    String chosen;
    try (ShardContext.Scope scope = shards.contextForNewRoot(Shop.class)) {
      chosen = ShardContext.current();
      try (Session session = sessionFactory.openSession()) {
        session.beginTransaction();
        session.persist(shop);
        session.persist(new Shelf(shop.getId(), "top"));
        session.getTransaction().commit();
      }
    }
    assertEquals(chosen, shards.shardFor(shop.getId()));
    assertEquals(Set.of(shop.getId()), shopsByShard(shards).get(chosen));
  }

  @Test
  void onlyRootsKeyedByASnowflakeIdAreNewRoots() {
    IllegalArgumentException notById = assertThrows(IllegalArgumentException.class,
        () -> shards.forNewRoot(Shelf.class));
    assertTrue(notById.getMessage().contains("shards.forKey(shopId)"), notById.getMessage());
    assertThrows(IllegalArgumentException.class, () -> shards.forNewRoot(String.class));
  }

  // ---------------------------------------------------------------------------------------------

  /** The shops on each primary, each checked to route to that shard; the port proves which server answered. */
  private static Map<String, Set<Long>> shopsByShard(ShardedSessions routing) throws SQLException {
    Map<String, Set<Long>> byShard = new HashMap<>();
    for (PostgresShard shard : pg.shards()) {
      String id = "s" + shard.index();
      Set<Long> ids = new HashSet<>();
      try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT inet_server_port(), id FROM new_root_shop")) {
        while (rs.next()) {
          assertEquals(shard.primary().port(), rs.getInt(1));
          long shopId = rs.getLong(2);
          assertEquals(id, routing.shardFor(shopId), "shop " + shopId + " is stored on " + id);
          ids.add(shopId);
        }
      }
      byShard.put(id, ids);
    }
    return byShard;
  }

  private static long firstKeyOf(String shard) {
    long key = 1;
    while (!shards.shardFor(key).equals(shard)) {
      key++;
    }
    return key;
  }

  private static void sql(PostgresShard shard, String sql) throws SQLException {
    try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
