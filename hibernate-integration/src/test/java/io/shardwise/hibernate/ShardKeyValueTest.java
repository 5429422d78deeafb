package io.shardwise.hibernate;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.values.Shelf;
import io.shardwise.hibernate.values.Shopper;
import io.shardwise.hibernate.values.Store;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import jakarta.persistence.LockModeType;
import jakarta.persistence.criteria.CriteriaBuilder;
import jakarta.persistence.criteria.CriteriaQuery;
import jakarta.persistence.criteria.Root;
import java.sql.SQLException;
import java.time.Duration;
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
 * A pinned shard key is not enough: the value it is pinned to must belong to the session's shard,
 * or the query (or find) would run where the rows cannot be and answer "nothing". Checked on every
 * execution, for parameters and literals, in WHERE, ON and subqueries, across co-location groups,
 * for HQL, criteria and bulk statements, and for loads by id. The servers log every statement, so
 * "nothing was sent" is read from their logs.
 */
@ShardedPostgres(shards = 2, settings = "log_statement='all'")
class ShardKeyValueTest {
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;
  /** A key owned by shard0 and one owned by shard1. */
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
    here = keyOn("shard0");
    there = keyOn("shard1");
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
        s.persist(new Shopper(key, "shopper " + key, key));
      });
    }
  }

  @Test
  void aQueryPinnedToAKeyOfAnotherShardIsRefusedNamingTheValueAndBothShards(PostgresTopology pg) {
    String probe = "refused-" + UUID.randomUUID();
    String hql = "from Shelf s where s.storeId = :store and s.label <> '" + probe + "'";

    ShardKeyException e = assertThrows(ShardKeyException.class, () -> onShardOf(here,
        s -> s.createSelectionQuery(hql, Shelf.class).setParameter("store", there).getResultList()));

    assertTrue(e.getMessage().startsWith("[ShardKeyOnOtherShard] This query pins Shelf.storeId = " + there
        + ", which belongs to shard 'shard1', but it runs in a session on shard 'shard0'"), e.getMessage());
    assertTrue(e.getMessage().contains("shards.forKey(" + there + ")"), e.getMessage());

    String sent = "sent-" + UUID.randomUUID();
    assertEquals(1, onShardOf(here, s -> s.createSelectionQuery(
        "from Shelf s where s.storeId = :store and s.label <> '" + sent + "'", Shelf.class)
        .setParameter("store", here).getResultList()).size());
    await().atMost(Duration.ofSeconds(30)).until(() -> logMentions(pg.shard(0).primary(), sent));
    assertFalse(logMentions(pg.shard(0).primary(), probe), "the refused query never reached shard0");
    assertFalse(logMentions(pg.shard(1).primary(), probe), "nor shard1");
  }

  @Test
  void everyExecutionOfOneCachedTranslationIsCheckedWithItsOwnValue() {
    String hql = "from Shelf s where s.storeId = :store";
    Function<Long, Function<Session, List<Shelf>>> byStore =
        key -> s -> s.createSelectionQuery(hql, Shelf.class).setParameter("store", key).getResultList();

    assertEquals("shelf of " + here, onShardOf(here, byStore.apply(here)).get(0).getLabel());
    assertEquals("shelf of " + there, onShardOf(there, byStore.apply(there)).get(0).getLabel());
    assertThrows(ShardKeyException.class, () -> onShardOf(here, byStore.apply(there)));
    assertThrows(ShardKeyException.class, () -> onShardOf(there, byStore.apply(here)));
    assertEquals(1, onShardOf(here, byStore.apply(here)).size(), "the refusal changed nothing for the next call");
  }

  @Test
  void literalPinsAreCheckedLikeParameters() {
    String hql = "select s.label from Shelf s where s.storeId = " + there;
    assertEquals(List.of("shelf of " + there), onShardOf(there, s -> s.createSelectionQuery(hql, String.class)
        .getResultList()));
    ShardKeyException e = assertThrows(ShardKeyException.class,
        () -> onShardOf(here, s -> s.createSelectionQuery(hql, String.class).getResultList()));
    assertTrue(e.getMessage().contains("Shelf.storeId = " + there + ", which belongs to shard 'shard1'"),
        e.getMessage());
  }

  @Test
  void everyValueOfAnInListMustBelongToTheSessionsShard() {
    String hql = "select s.label from Shelf s where s.storeId in (:stores)";
    assertEquals(List.of("shelf of " + here), onShardOf(here, s -> s.createSelectionQuery(hql, String.class)
        .setParameterList("stores", List.of(here)).getResultList()));
    ShardKeyException e = assertThrows(ShardKeyException.class, () -> onShardOf(here,
        s -> s.createSelectionQuery(hql, String.class).setParameterList("stores", List.of(here, there))
            .getResultList()));
    assertTrue(e.getMessage().contains("Shelf.storeId = " + there), e.getMessage());

    assertThrows(ShardKeyException.class, () -> onShardOf(here, s -> s.createSelectionQuery(
        "select s.label from Shelf s where s.storeId in (" + here + ", " + there + ")", String.class)
        .getResultList()));
  }

  /**
   * {@code s.store = :store}: the association's foreign key is the key column, and the parameter
   * binds the store's id, which is its key. The rule admits it, and each execution routes by that
   * id and is checked against the session's shard like a key parameter.
   */
  @Test
  void anEntityParameterOfTheGroupsRootPinsTheKeyAndItsIdIsChecked(PostgresTopology pg) {
    Store hereStore = onShardOf(here, s -> s.find(Store.class, here));
    Store thereStore = onShardOf(there, s -> s.find(Store.class, there));
    String hql = "select s.label from Shelf s where s.store = :store";
    assertEquals(List.of("shelf of " + here), onShardOf(here, s -> s.createSelectionQuery(hql, String.class)
        .setParameter("store", hereStore).getResultList()));
    assertEquals(List.of("shelf of " + there), onShardOf(there, s -> s.createSelectionQuery(hql, String.class)
        .setParameter("store", thereStore).getResultList()));

    String probe = "entity-refused-" + UUID.randomUUID();
    ShardKeyException e = assertThrows(ShardKeyException.class, () -> onShardOf(here, s -> s.createSelectionQuery(
        "select s.label from Shelf s where s.store = :store and s.label <> '" + probe + "'", String.class)
        .setParameter("store", thereStore).getResultList()));
    assertTrue(e.getMessage().startsWith("[ShardKeyOnOtherShard] This query pins Store.id = " + there
        + ", which belongs to shard 'shard1', but it runs in a session on shard 'shard0'"), e.getMessage());

    String inList = "select s.label from Shelf s where s.store in (:stores)";
    assertEquals(List.of("shelf of " + here), onShardOf(here, s -> s.createSelectionQuery(inList, String.class)
        .setParameterList("stores", List.of(hereStore)).getResultList()));
    assertThrows(ShardKeyException.class, () -> onShardOf(here, s -> s.createSelectionQuery(inList, String.class)
        .setParameterList("stores", List.of(hereStore, thereStore)).getResultList()));

    String root = "select st.name from Store st where st = :store";
    assertEquals(List.of("store " + here), onShardOf(here, s -> s.createSelectionQuery(root, String.class)
        .setParameter("store", hereStore).getResultList()));
    assertThrows(ShardKeyException.class, () -> onShardOf(here, s -> s.createSelectionQuery(root, String.class)
        .setParameter("store", thereStore).getResultList()));

    String sub = "select s.label from Shelf s where s.store in (select st from Store st where st.id = :id)";
    assertEquals(List.of("shelf of " + here), onShardOf(here, s -> s.createSelectionQuery(sub, String.class)
        .setParameter("id", here).getResultList()));
    assertThrows(ShardKeyException.class, () -> onShardOf(here, s -> s.createSelectionQuery(sub, String.class)
        .setParameter("id", there).getResultList()));

    assertNeverSent(pg, "shelf", probe);
  }

  /** An entity parameter on one branch of OR pins nothing: refused before any SQL. */
  @Test
  void anEntityParameterOnOneBranchOfOrPinsNothing() {
    assertThrows(ShardKeyMissingException.class, () -> onShardOf(here, s -> s.createSelectionQuery(
        "select s.label from Shelf s where s.id = :id or s.store = :store", String.class)
        .setParameter("id", 1L).setParameter("store", new Store(here, "x")).getResultList()));
  }

  /**
   * An HQL insert must write the key of the rows it inserts: one that leaves it out is refused
   * before any SQL, inside the scatter-gather bypass too; one that copies it from the selected rows
   * inserts them on their shard.
   */
  @Test
  void anInsertThatDoesNotWriteTheKeyIsRefusedBeforeAnySql(PostgresTopology pg) {
    String probe = "insert-refused-" + UUID.randomUUID();
    String without = "insert into Shelf (id, label) select s.id + 1, '" + probe + "' from Shelf s"
        + " where s.storeId = :store";
    ShardKeyMissingException e = assertThrows(ShardKeyMissingException.class, () -> shards.forKey(here)
        .inTransaction(s -> s.createMutationQuery(without).setParameter("store", here).executeUpdate()));
    assertTrue(e.getMessage().startsWith("[InsertWithoutShardKey] Query \"insert into Shelf"), e.getMessage());
    assertTrue(e.getMessage().contains("does not list storeId among the attributes it writes"), e.getMessage());
    assertThrows(ShardKeyMissingException.class, () -> io.shardwise.hibernate.internal.query.QueryGuard.bypass(
        () -> shards.forKey(here).fromSession(s -> s.createMutationQuery(
            io.shardwise.hibernate.internal.query.QueryGuard.scatterGather(without))
            .setParameter("store", here).executeUpdate())));

    String with = "insert into Shelf (id, storeId, label) select s.id + 1, s.storeId, 'copy' from Shelf s"
        + " where s.storeId = :store";
    assertEquals(1, (int) shards.forKey(here).fromTransaction(
        s -> s.createMutationQuery(with).setParameter("store", here).executeUpdate()));
    assertEquals(List.of("copy", "shelf of " + here), onShardOf(here, s -> s.createSelectionQuery(
        "select s.label from Shelf s where s.storeId = :store order by s.label", String.class)
        .setParameter("store", here).getResultList()));

    assertNeverSent(pg, "'copy'", probe);
  }

  @Test
  void anImplicitJoinToTheGroupsRootPinsTheKey() {
    String hql = "select s.label from Shelf s where s.store.id = :store";
    assertEquals(List.of("shelf of " + here), onShardOf(here, s -> s.createSelectionQuery(hql, String.class)
        .setParameter("store", here).getResultList()), "admitted by the rule: the association stays in the group");
    ShardKeyException e = assertThrows(ShardKeyException.class, () -> onShardOf(here,
        s -> s.createSelectionQuery(hql, String.class).setParameter("store", there).getResultList()));
    assertTrue(e.getMessage().contains("This query pins Store.id = " + there), e.getMessage());
  }

  @Test
  void aJoinOfTwoCoLocationGroupsRunsOnlyWhenBothKeysBelongToTheSessionsShard() {
    String hql = "select s.label, p.name from Shelf s join Shopper p on p.favouriteStore = s.storeId"
        + " where s.storeId = :store and p.id = :shopper";
    List<Object[]> rows = onShardOf(here, s -> s.createSelectionQuery(hql, Object[].class)
        .setParameter("store", here).setParameter("shopper", here).getResultList());
    assertEquals(1, rows.size());
    assertEquals("shopper " + here, rows.get(0)[1]);

    ShardKeyException e = assertThrows(ShardKeyException.class, () -> onShardOf(here,
        s -> s.createSelectionQuery(hql, Object[].class).setParameter("store", here).setParameter("shopper", there)
            .getResultList()));
    assertTrue(e.getMessage().contains("Shopper.id = " + there + ", which belongs to shard 'shard1'"),
        e.getMessage());
    assertTrue(e.getMessage().contains("The query joins 2 co-location groups (keys Shelf.storeId, Shopper.id)"),
        e.getMessage());
  }

  @Test
  void pinsInsideSubqueriesCountAndComparisonsThatRestrictNoRowsDoNot() {
    assertThrows(ShardKeyException.class, () -> onShardOf(here, s -> s.createSelectionQuery(
            "select s.label from Shelf s where s.storeId = :store"
                + " and not exists (select 1 from Shopper p where p.id = :shopper)", String.class)
        .setParameter("store", here).setParameter("shopper", there).getResultList()));

    assertEquals(List.of("shelf of " + here), onShardOf(here, s -> s.createSelectionQuery(
            "select s.label from Shelf s where s.storeId = :store and not (s.storeId = :other)", String.class)
        .setParameter("store", here).setParameter("other", there).getResultList()), "a NOT is no pin");
    assertEquals(List.of(0), onShardOf(here, s -> s.createSelectionQuery(
            "select case when s.storeId = :other then 1 else 0 end from Shelf s where s.storeId = :store",
            Integer.class)
        .setParameter("store", here).setParameter("other", there).getResultList()), "nor is a selected comparison");
  }

  @Test
  void criteriaQueriesAndBulkStatementsAreCheckedToo() {
    ShardKeyException criteria = assertThrows(ShardKeyException.class, () -> onShardOf(here, s -> {
      CriteriaBuilder cb = s.getCriteriaBuilder();
      CriteriaQuery<Shelf> q = cb.createQuery(Shelf.class);
      Root<Shelf> shelf = q.from(Shelf.class);
      q.where(cb.equal(shelf.get("storeId"), there));
      return s.createQuery(q).getResultList();
    }));
    assertTrue(criteria.getMessage().contains("Shelf.storeId = " + there), criteria.getMessage());

    assertThrows(ShardKeyException.class, () -> shards.forKey(here).inTransaction(s -> s.createMutationQuery(
        "update Shelf s set s.label = 'moved' where s.storeId = :store").setParameter("store", there)
        .executeUpdate()));
    assertEquals("shelf of " + there, onShardOf(there, s -> s.find(Shelf.class, there * 10).getLabel()));

    ShardKeyException keyChange = assertThrows(ShardKeyException.class, () -> shards.forKey(here).inTransaction(
        s -> s.createMutationQuery("update Shelf s set s.storeId = :other where s.storeId = :store")
            .setParameter("store", here).setParameter("other", there).executeUpdate()));
    assertTrue(keyChange.getMessage().startsWith("[ShardKeyChanged] An update sets Shelf.storeId"),
        keyChange.getMessage());

    assertEquals(1, (int) shards.forKey(here).fromTransaction(s -> s.createMutationQuery(
        "update Shelf s set s.label = 'relabelled' where s.storeId = :store").setParameter("store", here)
        .executeUpdate()));
  }

  @Test
  void findGetReferenceAndByIdOfAKeyOwnedByAnotherShardAreRefused() {
    assertEquals("store " + there, onShardOf(there, s -> s.find(Store.class, there).getName()));

    ShardKeyException find = assertThrows(ShardKeyException.class,
        () -> onShardOf(here, s -> s.find(Store.class, there)));
    assertTrue(find.getMessage().startsWith("[ShardKeyOnOtherShard] Cannot load Store with id = " + there
        + " in a session on shard 'shard0': that key belongs to shard 'shard1'"), find.getMessage());
    assertThrows(ShardKeyException.class, () -> onShardOf(here, s -> s.getReference(Store.class, there).getName()));
    assertThrows(ShardKeyException.class, () -> onShardOf(here, s -> s.byId(Store.class).load(there)));
    assertThrows(ShardKeyException.class, () -> shards.forKey(here).fromTransaction(
        s -> s.find(Store.class, there, LockModeType.PESSIMISTIC_WRITE)));
    assertThrows(ShardKeyException.class, () -> onShardOf(here, s -> s.find(Shopper.class, there)),
        "every group whose id is its key");
  }

  @Test
  void theScatterGatherApiRunsAPinnedInListOnEveryShard() {
    List<Shelf> both = shards.scatter().createQuery("from Shelf s where s.storeId in (:stores) order by s.id",
        Shelf.class).setParameter("stores", List.of(here, there)).getResultList();
    assertEquals(2, both.size());
    assertNotEquals(both.get(0).getId(), both.get(1).getId());
  }

  private static <R> R onShardOf(long key, Function<Session, R> work) {
    return shards.forKey(key).fromSession(work);
  }

  private static long keyOn(String shard) {
    for (long k = 1; ; k++) {
      if (shards.shardFor(k).equals(shard)) {
        return k;
      }
    }
  }

  /** Once shard0's log shows {@code sent}, neither server's log shows {@code refused}. */
  static void assertNeverSent(PostgresTopology pg, String sent, String refused) {
    await().atMost(Duration.ofSeconds(30)).until(() -> logMentions(pg.shard(0).primary(), sent));
    assertFalse(logMentions(pg.shard(0).primary(), refused), "the refused statement never reached shard0");
    assertFalse(logMentions(pg.shard(1).primary(), refused), "nor shard1");
  }

  static boolean logMentions(PostgresNode node, String probe) {
    return node.logTail(100_000).stream().anyMatch(line -> line.contains(probe));
  }
}
