package io.shardwise.hibernate.scatter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.shardwise.hibernate.scatter.internal.ScatterPlan;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.ShardedFrom;
import io.shardwise.hibernate.scatter.internal.ScatterPlanner;
import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.OrderItem;
import io.shardwise.hibernate.shop.PurchaseOrder;
import java.util.List;
import org.hibernate.SessionFactory;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a plan tells the bucket filter of a move, as data: the sharded entities of the FROM clause
 * with the aliases the shard HQL uses, and the outer join that makes a query unanswerable during a
 * move. No database.
 */
class ScatterMovePlanTest {
  private static SessionFactory sessionFactory;

  @BeforeAll
  static void start() {
    sessionFactory = PlanOnlySessionFactory.of(Country.class, Merchant.class, PurchaseOrder.class, OrderItem.class);
  }

  @AfterAll
  static void stop() {
    sessionFactory.close();
  }

  private static ScatterPlan plan(String hql) {
    return ScatterPlanner.plan(sessionFactory.unwrap(SessionFactoryImplementor.class), hql,
        type -> type == Country.class ? ScatterPlanner.REFERENCE : type.getPackage() == Merchant.class.getPackage()
            ? "Merchant" : null);
  }

  @Test
  void everyShardedRootAndInnerJoinIsListedWithItsAlias() {
    ScatterPlan p = plan("select count(i) from OrderItem i join i.order o");
    assertEquals(List.of(new ShardedFrom("i", OrderItem.class), new ShardedFrom("o", PurchaseOrder.class)),
        p.sharded());
    assertNull(p.outerJoin());
    assertEquals("select count(i) from %s i join i.order o where (i.quantity > 1) and (F)"
        .formatted(OrderItem.class.getName()),
        plan("select count(i) from OrderItem i join i.order o where i.quantity > 1").shardHql(null, "F"));
  }

  @Test
  void aLeftJoinOfAShardedEntityIsNamedButOneOfAReferenceTableIsNot() {
    assertEquals("it left joins OrderItem i",
        plan("select o.id, count(i) from PurchaseOrder o left join o.items i group by o.id").outerJoin());
    ScatterPlan reference = plan("select m.id, c.name from Merchant m left join m.country c");
    assertNull(reference.outerJoin());
    assertEquals(List.of(new ShardedFrom("m", Merchant.class)), reference.sharded());
  }

  @Test
  void aQueryOfReferenceTablesAloneHasNothingToFilter() {
    ScatterPlan p = plan("select count(c) from Country c");
    assertEquals(List.of(), p.sharded());
    assertEquals(true, p.oneShard());
  }
}
