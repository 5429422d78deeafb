package io.shardwise.hibernate;

import static io.shardwise.hibernate.ShardDeadlineTest.keyOn;
import static io.shardwise.hibernate.ShardKeyValueTest.assertNeverSent;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.internal.query.QueryGuard;
import io.shardwise.hibernate.values.Shelf;
import io.shardwise.hibernate.values.Shopper;
import io.shardwise.hibernate.values.Store;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Native SQL is held to the shard-key rule at run time as HQL is: a statement that leaves a sharded
 * table's key column unpinned is refused before any SQL (the servers log every statement, so
 * "nothing was sent" is read from their logs), and each value a native select pins the key to must
 * belong to the session's shard, whether a named or positional parameter or a literal. So must
 * each key value a native UPDATE or DELETE pins and a native INSERT writes; a session of no shard
 * binds to the shard of those values, and the statement runs on that shard's primary.
 */
@ShardedPostgres(shards = 2, settings = "log_statement='all'")
class NativeQueryGuardTest {
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;
  private static long here;
  private static long there;

  @BeforeAll
  static void start(PostgresTopology pg) {
    Shardwise.Builder b = Shardwise.configure().credentials("postgres", null).schema("create")
        .entities(Store.class, Shelf.class, Shopper.class);
    for (PostgresShard shard : pg.shards()) {
      b.shard(ShopFixture.shardId(shard.index()), shard.primary().jdbcUrl());
    }
    sessionFactory = b.buildSessionFactory();
    shards = ShardedSessions.of(sessionFactory);
    here = keyOn(shards, "shard0");
    there = keyOn(shards, "shard1");
  }

  @AfterAll
  static void stop() {
    sessionFactory.close();
  }

  @BeforeEach
  void data(PostgresTopology pg) throws SQLException {
    ShopFixture.executeOnEveryShard(pg, "TRUNCATE shelf, store, shopper");
    for (long key : new long[] {here, there}) {
      shards.forKey(key).inTransaction(s -> {
        s.persist(new Store(key, "store " + key));
        s.persist(new Shelf(key * 10, key, "shelf of " + key));
      });
    }
  }

  @Test
  void anUnpinnedNativeSelectIsRefusedBeforeAnySql(PostgresTopology pg) {
    String probe = "refused-" + UUID.randomUUID();
    String sql = "select s.label from shelf s where s.label <> '" + probe + "'";

    ShardKeyMissingException e = assertThrows(ShardKeyMissingException.class,
        () -> onShardOf(here, s -> s.createNativeQuery(sql, String.class).getResultList()));

    assertTrue(e.getMessage().startsWith("Native query \"" + sql + "\" of persistence unit '"), e.getMessage());
    assertTrue(e.getMessage().contains("reads sharded table shelf s (entity Shelf, key column store_id) without"
        + " pinning its key column"), e.getMessage());
    assertTrue(e.getMessage().contains("Fix: add \"s.store_id = :storeId\""), e.getMessage());
    assertNeverSent(pg, sentProbe(), probe);
  }

  @Test
  void aPinnedNativeSelectRunsOnTheSessionsShard() {
    String sql = "select s.label from shelf s join store t on t.id = s.store_id where s.store_id = :store";
    assertEquals(List.of("shelf of " + here), onShardOf(here,
        s -> s.createNativeQuery(sql, String.class).setParameter("store", here).getResultList()));
    assertEquals(List.of("shelf of " + there), onShardOf(there,
        s -> s.createNativeQuery(sql, String.class).setParameter("store", there).getResultList()));
    assertEquals(List.of("shelf of " + here), onShardOf(here, s -> s.createNativeQuery(
        "select label from shelf where store_id = ?1", String.class).setParameter(1, here).getResultList()));
  }

  @Test
  void eachValueANativeSelectPinsMustBelongToTheSessionsShard(PostgresTopology pg) {
    String probe = "other-" + UUID.randomUUID();
    Function<Session, List<String>> named = s -> s.createNativeQuery("select label from shelf where store_id = :store"
        + " and label <> '" + probe + "'", String.class).setParameter("store", there).getResultList();
    ShardKeyException e = assertThrows(ShardKeyException.class, () -> onShardOf(here, named));
    assertTrue(e.getMessage().startsWith("[ShardKeyOnOtherShard] This query pins Shelf.storeId = " + there
        + ", which belongs to shard 'shard1', but it runs in a session on shard 'shard0'"), e.getMessage());

    assertThrows(ShardKeyException.class, () -> onShardOf(here, s -> s.createNativeQuery(
        "select label from shelf where store_id in (?1, ?2)", String.class)
        .setParameter(1, here).setParameter(2, there).getResultList()));
    assertThrows(ShardKeyException.class, () -> onShardOf(here, s -> s.createNativeQuery(
        "select label from shelf where store_id in (:stores)", String.class)
        .setParameterList("stores", List.of(here, there)).getResultList()));
    // a list before the key: Hibernate sends three placeholders for it, the key's is the fourth
    assertThrows(ShardKeyException.class, () -> onShardOf(here, s -> s.createNativeQuery(
        "select label from shelf where label in (:labels) and store_id = :store", String.class)
        .setParameterList("labels", List.of("a", "b", "shelf of " + there)).setParameter("store", there)
        .getResultList()));
    assertEquals(List.of("shelf of " + here), onShardOf(here, s -> s.createNativeQuery(
        "select label from shelf where label in (:labels) and store_id = :store", String.class)
        .setParameterList("labels", List.of("a", "b", "shelf of " + here)).setParameter("store", here)
        .getResultList()));
    String literal = "select label from shelf where store_id = " + there;
    assertThrows(ShardKeyException.class, () -> onShardOf(here, s -> s.createNativeQuery(literal, String.class)
        .getResultList()));
    assertEquals(List.of("shelf of " + there), onShardOf(there, s -> s.createNativeQuery(literal, String.class)
        .getResultList()));
    assertNeverSent(pg, sentProbe(), probe);
  }

  @Test
  void nativeStatementsThatWriteAreHeldToTheRuleToo() {
    String unpinned = "update shelf set label = 'x' where label = :label";
    assertThrows(ShardKeyMissingException.class, () -> shards.forKey(here).inTransaction(
        s -> s.createNativeMutationQuery(unpinned).setParameter("label", "shelf of " + here).executeUpdate()));
    String withoutKey = "insert into shelf (id, label) values (:id, 'no key')";
    ShardKeyMissingException insert = assertThrows(ShardKeyMissingException.class, () -> shards.forKey(here)
        .inTransaction(s -> s.createNativeMutationQuery(withoutKey).setParameter("id", 99L).executeUpdate()));
    assertTrue(insert.getMessage().startsWith("[InsertWithoutShardKey] Native query"), insert.getMessage());

    String pinned = "update shelf set label = :label where store_id = :store";
    assertEquals(1, (int) shards.forKey(here).fromTransaction(s -> s.createNativeMutationQuery(pinned)
        .setParameter("label", "renamed").setParameter("store", here).executeUpdate()));
    assertEquals(List.of("renamed"), onShardOf(here, s -> s.createNativeQuery(
        "select label from shelf where store_id = :store", String.class).setParameter("store", here).getResultList()));
  }

  @Test
  void eachKeyValueANativeWritePinsMustBelongToTheSessionsShard(PostgresTopology pg) {
    String probe = "write-" + UUID.randomUUID();
    String delete = "delete from shelf where store_id = :store and label <> '" + probe + "'";
    ShardKeyException e = assertThrows(ShardKeyException.class, () -> shards.forKey(here).inTransaction(
        s -> s.createNativeMutationQuery(delete).setParameter("store", there).executeUpdate()));
    assertTrue(e.getMessage().startsWith("[ShardKeyOnOtherShard] This query pins Shelf.storeId = " + there
        + ", which belongs to shard 'shard1', but it runs in a session on shard 'shard0'"), e.getMessage());

    assertThrows(ShardKeyException.class, () -> shards.forKey(here).inTransaction(s -> s.createNativeMutationQuery(
        "update shelf set label = '" + probe + "' where store_id in (?1, ?2)")
        .setParameter(1, here).setParameter(2, there).executeUpdate()));
    assertThrows(ShardKeyException.class, () -> shards.forKey(here).inTransaction(s -> s.createNativeMutationQuery(
        "update shelf set label = '" + probe + "' where store_id in (:stores)")
        .setParameterList("stores", List.of(here, there)).executeUpdate()));
    assertThrows(ShardKeyException.class, () -> shards.forKey(here).inTransaction(s -> s.createNativeMutationQuery(
        "delete from shelf where label <> '" + probe + "' and store_id = " + there).executeUpdate()));
    ShardKeyException insert = assertThrows(ShardKeyException.class, () -> shards.forKey(here).inTransaction(
        s -> s.createNativeMutationQuery("insert into shelf (id, store_id, label) values (:id, :store, '" + probe
            + "')").setParameter("id", 77L).setParameter("store", there).executeUpdate()));
    assertTrue(insert.getMessage().startsWith("[ShardKeyOnOtherShard] This query pins Shelf.storeId = " + there),
        insert.getMessage());

    assertNeverSent(pg, sentProbe(), probe);
    assertEquals(List.of("shelf of " + there), onShardOf(there, s -> s.createNativeQuery(
        "select label from shelf where store_id = :store", String.class).setParameter("store", there).getResultList()),
        "the other shard's row is untouched");
  }

  @Test
  void aNativeWriteRunsOnThePrimaryOfItsKeyAndBindsASessionOfNoShard(PostgresTopology pg) {
    try (Session session = sessionFactory.openSession()) {
      session.beginTransaction();
      assertEquals(1, session.createNativeMutationQuery("delete from shelf where store_id = :store")
          .setParameter("store", there).executeUpdate());
      assertEquals("shard1", ShardedSessions.shardOf(session), "the key bound the session");
      assertEquals(pg.shard(1).primary().port(), port(session));
      session.getTransaction().commit();
    }
    try (Session session = sessionFactory.openSession()) {
      session.beginTransaction();
      assertEquals(1, session.createNativeMutationQuery("insert into shelf (id, store_id, label) values (?1, ?2, ?3)")
          .setParameter(1, there * 10 + 1).setParameter(2, there).setParameter(3, "inserted").executeUpdate());
      assertEquals(pg.shard(1).primary().port(), port(session));
      session.getTransaction().commit();
    }
    assertEquals(List.of("inserted"), onShardOf(there, s -> s.createNativeQuery(
        "select label from shelf where store_id = :store", String.class).setParameter("store", there).getResultList()));
    assertEquals(List.of("shelf of " + here), onShardOf(here, s -> s.createNativeQuery(
        "select label from shelf where store_id = :store", String.class).setParameter("store", here).getResultList()),
        "the session's shard before it bound kept its row");
  }

  private static int port(Session session) {
    return session.createNativeQuery("select inet_server_port()", Integer.class).getSingleResult();
  }

  @Test
  void aScatterGatherMarkedNativeQueryRunsInsideTheBypassOnly() {
    String sql = "select count(*) from shelf";
    assertThrows(ShardKeyMissingException.class,
        () -> onShardOf(here, s -> s.createNativeQuery(sql, Long.class).getSingleResult()));
    assertThrows(IllegalStateException.class, () -> QueryGuard.bypass(
        () -> onShardOf(here, s -> s.createNativeQuery(sql, Long.class).getSingleResult())));
    assertEquals(1L, (long) QueryGuard.bypass(() -> onShardOf(here,
        s -> s.createNativeQuery(QueryGuard.scatterGather(sql), Long.class).getSingleResult())));
  }

  private static String sentProbe() {
    String sent = "sent-" + UUID.randomUUID();
    onShardOf(here, s -> s.createNativeQuery("select label from shelf where store_id = :store and label <> '"
        + sent + "'", String.class).setParameter("store", here).getResultList());
    return sent;
  }

  private static <R> R onShardOf(long key, Function<Session, R> work) {
    return shards.forKey(key).fromSession(work);
  }
}
