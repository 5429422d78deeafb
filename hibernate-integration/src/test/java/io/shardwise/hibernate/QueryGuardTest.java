package io.shardwise.hibernate;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.guard.Journal;
import io.shardwise.hibernate.guard.Ledger;
import io.shardwise.hibernate.internal.query.GuardedHqlTranslator;
import io.shardwise.hibernate.internal.query.QueryGuard;
import io.shardwise.hibernate.internal.query.QueryGuards;
import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.OrderItem;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.hibernate.SessionFactory;
import org.hibernate.query.hql.HqlTranslator;
import org.hibernate.query.sqm.tree.SqmStatement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Queries built at run time are held to the shard-key rule when Hibernate first translates them:
 * refused before any SQL reaches a server, admitted when pinned, judged once per query string, and
 * let through by the scatter-gather bypass. The servers log every statement, so "nothing was sent"
 * is read from their logs, after a control query proves the log is being read.
 */
@ShardedPostgres(shards = 2, settings = "log_statement='all'")
class QueryGuardTest {
  private static final long MERCHANT = 42;
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
  void data(PostgresTopology pg) throws SQLException {
    ShopFixture.executeOnEveryShard(pg, "TRUNCATE order_item, purchase_order, merchant, country");
    ShopFixture.executeOnEveryShard(pg, "INSERT INTO country (code, name) VALUES ('GB', 'United Kingdom')");
    shards.forKey(MERCHANT).inTransaction(s -> {
      s.persist(new Merchant(MERCHANT, "Forty-two", s.getReference(Country.class, "GB")));
      PurchaseOrder order = new PurchaseOrder(4201, MERCHANT, "Ada");
      order.addItem(42011, "LAMP", 2);
      s.persist(order);
    });
  }

  @Test
  void aQueryWithoutTheShardKeyIsRefusedBeforeAnySqlIsSent(PostgresTopology pg) {
    String refusedProbe = "refused-" + UUID.randomUUID();
    String hql = "from PurchaseOrder o where o.customer = '" + refusedProbe + "'";

    ShardKeyMissingException e = assertThrows(ShardKeyMissingException.class,
        () -> shards.forKey(MERCHANT).fromSession(s -> s.createSelectionQuery(hql, PurchaseOrder.class)
            .getResultList()));

    assertTrue(e.getMessage().startsWith("Query \"" + hql + "\""), e.getMessage());
    assertTrue(e.getMessage().contains("sharded entity PurchaseOrder o (shard key merchantId)"), e.getMessage());
    assertTrue(e.getMessage().contains("add \"o.merchantId = :merchantId\" to the WHERE clause"), e.getMessage());
    assertTrue(e.getMessage().contains("scatter-gather API"), e.getMessage());

    // Control: a pinned query on the same shard, carrying its own probe, does reach the log.
    String sentProbe = "sent-" + UUID.randomUUID();
    shards.forKey(MERCHANT).fromSession(s -> s.createSelectionQuery(
            "from PurchaseOrder o where o.merchantId = :m and o.customer <> '" + sentProbe + "'", PurchaseOrder.class)
        .setParameter("m", MERCHANT).getResultList());
    PostgresNode server = pg.shard(shardIndex(MERCHANT)).primary();
    await().atMost(Duration.ofSeconds(30)).until(() -> logMentions(server, sentProbe));
    for (int i = 0; i < pg.shards().size(); i++) {
      assertTrue(!logMentions(pg.shard(i).primary(), refusedProbe), "shard " + i + " never saw the refused query");
    }
  }

  @Test
  void queriesThatPinTheKeyOrReadOnlyReferenceTablesRun() {
    List<PurchaseOrder> byEquality = shards.forKey(MERCHANT).fromSession(s -> s.createSelectionQuery(
        "from PurchaseOrder o where o.merchantId = :m", PurchaseOrder.class).setParameter("m", MERCHANT).getResultList());
    assertEquals(1, byEquality.size());

    List<PurchaseOrder> byInList = shards.forKey(MERCHANT).fromSession(s -> s.createSelectionQuery(
            "from PurchaseOrder o where (o.merchantId in (:ms) and o.customer = 'Ada') or o.merchantId = 42",
            PurchaseOrder.class)
        .setParameterList("ms", List.of(MERCHANT)).getResultList());
    assertEquals(1, byInList.size());

    List<String> throughCoLocatedJoin = shards.forKey(MERCHANT).fromSession(s -> s.createSelectionQuery(
            "select i.sku from PurchaseOrder o join o.items i, Merchant m where o.merchantId = :m and m.id = o.merchantId",
            String.class)
        .setParameter("m", MERCHANT).getResultList());
    assertEquals(List.of("LAMP"), throughCoLocatedJoin);

    List<Country> referenceOnly = shards.forKey(MERCHANT).fromSession(s -> s.createSelectionQuery(
        "from Country", Country.class).getResultList());
    assertEquals(1, referenceOnly.size());

    int updated = shards.forKey(MERCHANT).fromTransaction(s -> s.createMutationQuery(
            "update OrderItem i set i.quantity = 3 where i.merchantId = :m").setParameter("m", MERCHANT)
        .executeUpdate());
    assertEquals(1, updated);
  }

  @Test
  void eachQueryStringIsJudgedOnceAndTheVerdictIsKept() {
    QueryGuard guard = QueryGuards.of(sessionFactory);
    String refused = "select o.id from PurchaseOrder o where o.customer = 'cache-" + UUID.randomUUID() + "'";
    long before = guard.evaluations();
    for (int attempt = 0; attempt < 3; attempt++) {
      assertThrows(ShardKeyMissingException.class,
          () -> shards.forKey(MERCHANT).fromSession(s -> s.createSelectionQuery(refused, Long.class).getResultList()));
    }
    assertEquals(before + 1, guard.evaluations(), "a refusal is judged once, and still refused every time");

    String pinned = "select o.id from PurchaseOrder o where o.merchantId = :m and o.customer <> 'cache-"
        + UUID.randomUUID() + "'";
    before = guard.evaluations();
    for (Class<?> type : List.of(Long.class, Object.class, Long.class)) {
      // Hibernate caches a translation per (query, result type): Object.class makes it translate again.
      assertEquals(1, shards.forKey(MERCHANT).fromSession(s -> s.createSelectionQuery(pinned, type)
          .setParameter("m", MERCHANT).getResultList()).size());
    }
    assertEquals(before + 1, guard.evaluations(), "an admitted query is judged once, however often it is translated");
  }

  @Test
  void theScatterGatherBypassLetsAMarkedQueryThroughAndLeavesTheBareTextGuarded() {
    String hql = "select o.customer from PurchaseOrder o where o.customer like 'A%'";

    List<String> onThisShard = QueryGuard.bypass(() -> shards.forKey(MERCHANT).fromSession(
        s -> s.createSelectionQuery(QueryGuard.scatterGather(hql), String.class).getResultList()));
    assertEquals(List.of("Ada"), onThisShard);

    IllegalStateException unmarked = assertThrows(IllegalStateException.class, () -> QueryGuard.bypass(
        () -> shards.forKey(MERCHANT).fromSession(s -> s.createSelectionQuery(hql, String.class).getResultList())));
    assertTrue(unmarked.getMessage().contains("QueryGuard.scatterGather(hql)"), unmarked.getMessage());

    assertThrows(ShardKeyMissingException.class, () -> shards.forKey(MERCHANT).fromSession(
        s -> s.createSelectionQuery(hql, String.class).getResultList()), "the bare text is still refused");
    assertThrows(ShardKeyMissingException.class, () -> shards.forKey(MERCHANT).fromSession(
        s -> s.createSelectionQuery(QueryGuard.scatterGather(hql.replace("A%", "B%")), String.class).getResultList()),
        "outside a bypass the mark alone permits nothing");
    assertTrue(!QueryGuard.bypassed(), "the bypass ends with its call");
  }

  @Test
  void aShardedUnitWhoseTranslatorIsNotTheGuardDoesNotStart(PostgresTopology pg) {
    ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class,
        () -> ShopFixture.builder(pg).property(GuardedHqlTranslator.SETTING, OtherTranslator.class.getName())
            .buildSessionFactory().close());
    assertTrue(e.getMessage().contains("set hibernate.query.hql.translator = " + GuardedHqlTranslator.class.getName()),
        e.getMessage());
  }

  @Test
  void namedQueriesAreJudgedAtStartupAndScatterGatherAdmitsThemByName(PostgresTopology pg) {
    SessionFactory admitted = unit(pg, Ledger.class).buildSessionFactory();
    try {
      List<Ledger> everywhere = ShardedSessions.of(admitted).forKey(1L)
          .fromSession(s -> s.createNamedQuery("Ledger.all", Ledger.class).getResultList());
      assertEquals(List.of(), everywhere, "Ledger.all is @ScatterGather: admitted");
    } finally {
      admitted.close();
    }

    ShardKeyMissingException e = assertThrows(ShardKeyMissingException.class,
        () -> unit(pg, Ledger.class, Journal.class).buildSessionFactory().close());
    assertTrue(e.getMessage().startsWith("Query \"from Journal j\""), e.getMessage());
  }

  private static Shardwise.Builder unit(PostgresTopology pg, Class<?>... entities) {
    Shardwise.Builder b = Shardwise.configure().credentials("postgres", null).schema("create").entities(entities);
    pg.shards().forEach(shard -> b.shard(ShopFixture.shardId(shard.index()), shard.primary().jdbcUrl()));
    return b;
  }

  /** An application's own translator, which Shardwise does not silently replace. */
  public static final class OtherTranslator implements HqlTranslator {
    @Override
    public <R> SqmStatement<R> translate(String hql, Class<R> expectedResultType) {
      throw new UnsupportedOperationException("never called: the unit does not start");
    }
  }

  private static int shardIndex(long key) {
    return Integer.parseInt(shards.shardFor(key).substring("shard".length()));
  }

  private static boolean logMentions(PostgresNode node, String probe) {
    return node.logTail(100_000).stream().anyMatch(line -> line.contains(probe));
  }
}
