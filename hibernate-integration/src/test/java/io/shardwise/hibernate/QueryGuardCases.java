package io.shardwise.hibernate;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.internal.query.QueryGuard;
import io.shardwise.hibernate.internal.query.QueryGuards;
import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresTopology;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Queries built at run time are held to the shard-key rule when Hibernate first translates them:
 * refused before any SQL reaches a server, admitted when pinned, judged once per query string, and
 * let through by the scatter-gather bypass. The servers log every statement, so "nothing was sent"
 * is read from their logs, after a control query proves the log is being read. Run on every layout
 * by {@link CoreMatrixTest}; the start-up checks are in {@link QueryGuardTest}.
 */
abstract class QueryGuardCases extends MatrixCases {
  private static final long MERCHANT = 42;

  @BeforeEach
  void data() {
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
    PostgresNode server = pg.shard(unit.indexFor(MERCHANT)).primary();
    await().atMost(Duration.ofSeconds(30)).until(() -> logMentions(server, sentProbe));
    for (int i = 0; i < layout.shards(); i++) {
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
    QueryGuard guard = QueryGuards.of(unit.sessionFactory());
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

  private static boolean logMentions(PostgresNode node, String probe) {
    return node.logTail(100_000).stream().anyMatch(line -> line.contains(probe));
  }
}
