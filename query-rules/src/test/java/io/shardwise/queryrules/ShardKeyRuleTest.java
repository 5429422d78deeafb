package io.shardwise.queryrules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.queryrules.ShardKeyRule.Analysis;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The rule on a model written out by hand: Merchant (key id) with co-located PurchaseOrder and
 * OrderItem (key merchantId), and the reference table Country.
 */
class ShardKeyRuleTest {

  private static final TestModel MODEL = new TestModel()
      .sharded("Merchant", "Merchant", "id", Set.of("id", "name"), Map.of("orders", "PurchaseOrder"))
      .sharded("PurchaseOrder", "Merchant", "merchantId",
          Set.of("id", "merchantId", "status", "items", "country"),
          Map.of("items", "OrderItem", "country", "Country"))
      .sharded("OrderItem", "Merchant", "merchantId", Set.of("id", "merchantId", "order", "quantity"),
          Map.of("order", "PurchaseOrder"))
      .reference("Country", Set.of("code", "name"), Map.of());

  private final ShardKeyRule rule = new ShardKeyRule(MODEL);

  @Test
  void anUnpinnedEntityIsNamedWithItsAlias() {
    Analysis analysis = rule.analyze("from PurchaseOrder o where o.status = 'NEW'", null);
    assertEquals(1, analysis.unpinned().size());
    assertEquals("PurchaseOrder o", analysis.unpinned().get(0).describe());
    assertTrue(analysis.unresolved().isEmpty());
    assertFalse(analysis.rootMissing());
  }

  @Test
  void aPinnedQueryGivesItsKeyParameterFromTheSameParse() {
    Analysis analysis =
        rule.analyze("from PurchaseOrder o where o.status = :s and o.merchantId = :merchant", null);
    assertTrue(analysis.unpinned().isEmpty());
    assertEquals("merchant", analysis.keyParameter());
    assertEquals("merchant",
        rule.keyParameter("from PurchaseOrder o where o.status = :s and o.merchantId = :merchant"));
  }

  @Test
  void oneParseIsJudgedUnderTwoModels() {
    ShardKeyRule.Parsed parsed = ShardKeyRule.parsed("from PurchaseOrder o where o.status = :s");
    assertEquals(1, rule.analyze(parsed, null).unpinned().size());
    TestModel unsharded = new TestModel().reference("PurchaseOrder", Set.of("id", "status"), Map.of());
    assertTrue(new ShardKeyRule(unsharded).analyze(parsed, null).unpinned().isEmpty(), "the same tree, judged again");
    assertNull(ShardKeyRule.parsed("from PurchaseOrder o where ("));
  }

  @Test
  void namesTheModelDoesNotKnowAreListedOnceInOrder() {
    Analysis analysis = rule.analyze("select o from PurchaseOrder o, Invoice i join Refund r"
        + " on r.id = i.id where o.merchantId = :m and exists (select 1 from Invoice j)", null);
    assertEquals(List.of("Invoice", "Refund"), analysis.unresolved());
    assertTrue(analysis.unpinned().isEmpty(), "unknown names are not unpinned entities");
    assertTrue(rule.check("from Invoice i").isEmpty(), "check() still skips unknown names");
  }

  @Test
  void commonTableExpressionsAreNotEntityNames() {
    Analysis analysis = rule.analyze("with recent as (select o.merchantId as m from PurchaseOrder o"
        + " where o.merchantId = :m) select r.m from recent r", null);
    assertTrue(analysis.unresolved().isEmpty(), analysis.toString());
    assertTrue(analysis.unpinned().isEmpty(), analysis.toString());

    Analysis unpinnedBody = rule.analyze("with recent as (select o.merchantId as m from"
        + " PurchaseOrder o where o.status = 'NEW') select r.m from recent r", null);
    assertEquals(1, unpinnedBody.unpinned().size(), "the body of a CTE is checked too");
  }

  @Test
  void aQueryWithoutFromReadsTheImplicitRootWhenThereIsOne() {
    QueryModel.Entity order = MODEL.entity("PurchaseOrder");
    Analysis unpinned = rule.analyze("where status = :status", order);
    assertEquals(1, unpinned.unpinned().size());
    assertEquals("PurchaseOrder", unpinned.unpinned().get(0).describe());
    assertFalse(unpinned.rootMissing());

    Analysis pinned = rule.analyze("where merchantId = :m and status = :status", order);
    assertTrue(pinned.unpinned().isEmpty());
    assertEquals("m", pinned.keyParameter());

    Analysis noContext = rule.analyze("where status = :status", null);
    assertTrue(noContext.rootMissing());
    assertTrue(noContext.unpinned().isEmpty());

    Analysis withFrom = rule.analyze("from Merchant m where m.id = :id", order);
    assertFalse(withFrom.rootMissing());
    assertTrue(withFrom.unpinned().isEmpty(), "a FROM clause wins over the implicit root");
  }

  @Test
  void aJoinFromAnUnaliasedRootFollowsTheAssociation() {
    Analysis analysis =
        rule.analyze("select i from PurchaseOrder join items i where i.merchantId = :m", null);
    assertTrue(analysis.unresolved().isEmpty(), analysis.toString());
    assertTrue(analysis.unpinned().isEmpty(), "the inner join inside one group pins the root");
  }

  @Test
  void queriesThatDoNotParseGiveNothing() {
    assertNull(rule.analyze("selec o fromm PurchaseOrder o wher", null));
    assertNull(rule.analyze("from PurchaseOrder o where (", null));
    assertNull(rule.analyze("from PurchaseOrder o where o.status = 'unterminated", null));
    assertNull(rule.check("from PurchaseOrder o where o.merchantId = = 1"));
  }

  /**
   * Statements that exercise the grammar's harder decisions (nested subqueries, CASE, tuples,
   * functions, set operations) parse and get the verdicts the rule documents.
   */
  @Test
  void harderStatementsParseAndAreJudged() {
    String[] pinned = {
        "select o.status, count(*) from PurchaseOrder o where o.merchantId = :m group by o.status"
            + " having count(*) > 1 order by 2 desc",
        "select case when o.status = 'NEW' then 1 else 0 end from PurchaseOrder o"
            + " where o.merchantId = :m and (o.id, o.status) = (:id, :s)",
        "select o from PurchaseOrder o where o.merchantId = :m union all select o from"
            + " PurchaseOrder o where o.merchantId = :n",
        "select o from PurchaseOrder o where o.merchantId = :m and o.id in (select i.order.id"
            + " from OrderItem i where i.merchantId = o.merchantId and i.quantity > coalesce(:q, 0))",
        "update PurchaseOrder o set o.status = upper(o.status) where o.merchantId in (1, 2, 3)",
    };
    for (String hql : pinned) {
      Analysis analysis = rule.analyze(hql, null);
      assertNotNull(analysis, hql);
      assertTrue(analysis.unpinned().isEmpty(), hql + " -> " + analysis);
    }
    Analysis union = rule.analyze("select o from PurchaseOrder o where o.merchantId = :m"
        + " union all select o from PurchaseOrder o where o.status = 'X'", null);
    assertEquals(1, union.unpinned().size(), "each side of a set operation is its own query");
  }
}
