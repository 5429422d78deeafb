package io.shardwise.hibernate.internal.query;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.queryrules.QueryModel;
import io.shardwise.queryrules.ShardKeyRule;
import io.shardwise.queryrules.ShardKeyRule.Unpinned;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The run-time guard's refusal never points a cross-group join at scatter-gather, which refuses it too. */
class QueryGuardMessageTest {
  record Shape(String simpleName, String shardKey, Object group, List<String> attributes)
      implements QueryModel.Entity {
    @Override
    public boolean hasAttribute(String attribute) {
      return attributes.contains(attribute);
    }

    @Override
    public QueryModel.Entity associationTarget(String attribute) {
      return null;
    }
  }

  static final Map<String, QueryModel.Entity> MODEL = Map.of(
      "PurchaseOrder", new Shape("PurchaseOrder", "merchantId", "Merchant", List.of("id", "merchantId", "customer")),
      "Customer", new Shape("Customer", "id", "Customer", List.of("id", "email")));

  static List<Unpinned> unpinned(String hql) {
    return new ShardKeyRule(MODEL::get).check(hql);
  }

  @Test
  void aJoinAcrossGroupsIsToldToPinBothKeysOrSplit() {
    String hql = "select o from PurchaseOrder o join Customer c on c.email = o.customer where o.merchantId = :m";
    List<Unpinned> culprits = unpinned(hql);
    assertTrue(culprits.get(0).crossesGroups(), culprits.toString());
    assertNotNull(culprits.get(0).otherGroup());
    String message = QueryGuard.message(hql, culprits, "shop");
    assertTrue(message.contains("add \"c.id = :id\""), message);
    assertTrue(message.contains("joins PurchaseOrder o of another co-location group"), message);
    assertTrue(message.contains("split the query"), message);
    assertFalse(message.contains("through the scatter-gather API"), message);
  }

  @Test
  void aQueryOfOneGroupIsStillOfferedScatterGather() {
    String hql = "from PurchaseOrder o where o.customer = 'x'";
    List<Unpinned> culprits = unpinned(hql);
    assertFalse(culprits.get(0).crossesGroups());
    assertTrue(QueryGuard.message(hql, culprits, "shop").contains("through the scatter-gather API"));
  }
}
