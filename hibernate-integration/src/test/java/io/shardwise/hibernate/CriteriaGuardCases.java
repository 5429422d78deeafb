package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.internal.query.GuardedSqmTranslatorFactory;
import io.shardwise.hibernate.internal.query.QueryGuard;
import io.shardwise.hibernate.internal.query.QueryGuards;
import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.PurchaseOrder;
import jakarta.persistence.criteria.CriteriaDelete;
import jakarta.persistence.criteria.CriteriaQuery;
import jakarta.persistence.criteria.CriteriaUpdate;
import jakarta.persistence.criteria.Root;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.hibernate.Session;
import org.hibernate.query.criteria.HibernateCriteriaBuilder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Criteria queries never pass through the HQL translator; the guard holds them to the same rule
 * when Hibernate translates their SQM to SQL, which is before any SQL is sent. Run on every layout
 * by {@link CoreMatrixTest}; the start-up check is in {@link CriteriaGuardTest}.
 */
abstract class CriteriaGuardCases extends MatrixCases {
  private static final long MERCHANT = 42;

  @BeforeEach
  void data() {
    shards.forKey(MERCHANT).inTransaction(s -> {
      s.persist(new Merchant(MERCHANT, "Forty-two", s.getReference(Country.class, "GB")));
      s.persist(new PurchaseOrder(4201, MERCHANT, "Ada"));
    });
  }

  private static CriteriaQuery<PurchaseOrder> byCustomer(Session s, String customer) {
    HibernateCriteriaBuilder cb = s.getCriteriaBuilder();
    CriteriaQuery<PurchaseOrder> q = cb.createQuery(PurchaseOrder.class);
    Root<PurchaseOrder> o = q.from(PurchaseOrder.class);
    return q.select(o).where(cb.equal(o.get("customer"), customer));
  }

  private static CriteriaQuery<PurchaseOrder> byMerchantAndCustomer(Session s, long merchant, String customer) {
    HibernateCriteriaBuilder cb = s.getCriteriaBuilder();
    CriteriaQuery<PurchaseOrder> q = cb.createQuery(PurchaseOrder.class);
    Root<PurchaseOrder> o = q.from(PurchaseOrder.class);
    return q.select(o).where(cb.equal(o.get("merchantId"), merchant), cb.equal(o.get("customer"), customer));
  }

  @Test
  void anUnpinnedCriteriaQueryIsRefusedWhileHibernateTranslatesIt() {
    ShardKeyMissingException e = assertThrows(ShardKeyMissingException.class,
        () -> shards.forKey(MERCHANT).fromSession(s -> s.createQuery(byCustomer(s, "Ada")).getResultList()));

    assertTrue(e.getMessage().contains("uses sharded entity PurchaseOrder"), e.getMessage());
    assertTrue(e.getMessage().contains("(shard key merchantId) without pinning its shard key"), e.getMessage());
    assertTrue(e.getMessage().contains("scatter-gather API"), e.getMessage());
    // Thrown from the SQM-to-SQL translation: no SQL exists yet, so none was sent.
    assertTrue(Arrays.stream(e.getStackTrace()).anyMatch(f -> f.getClassName()
        .equals(GuardedSqmTranslatorFactory.class.getName()) && f.getMethodName().equals("createSelectTranslator")),
        () -> "thrown while translating: " + Arrays.toString(e.getStackTrace()));
  }

  @Test
  void aPinnedCriteriaQueryRuns() {
    List<PurchaseOrder> found = shards.forKey(MERCHANT).fromSession(
        s -> s.createQuery(byMerchantAndCustomer(s, MERCHANT, "Ada")).getResultList());
    assertEquals(1, found.size());

    List<Country> reference = shards.forKey(MERCHANT).fromSession(s -> {
      CriteriaQuery<Country> q = s.getCriteriaBuilder().createQuery(Country.class);
      return s.createQuery(q.select(q.from(Country.class))).getResultList();
    });
    assertEquals(1, reference.size(), "reference tables need no key");
  }

  @Test
  void criteriaUpdateAndDeleteAreHeldToTheSameRule() {
    assertThrows(ShardKeyMissingException.class, () -> shards.forKey(MERCHANT).fromTransaction(s -> {
      HibernateCriteriaBuilder cb = s.getCriteriaBuilder();
      CriteriaDelete<PurchaseOrder> delete = cb.createCriteriaDelete(PurchaseOrder.class);
      Root<PurchaseOrder> o = delete.from(PurchaseOrder.class);
      return s.createMutationQuery(delete.where(cb.equal(o.get("customer"), "Ada"))).executeUpdate();
    }));
    assertEquals(1, shards.forKey(MERCHANT).fromSession(
        s -> s.createQuery(byMerchantAndCustomer(s, MERCHANT, "Ada")).getResultList()).size(),
        "the refused delete removed nothing");

    int updated = shards.forKey(MERCHANT).fromTransaction(s -> {
      HibernateCriteriaBuilder cb = s.getCriteriaBuilder();
      CriteriaUpdate<PurchaseOrder> update = cb.createCriteriaUpdate(PurchaseOrder.class);
      Root<PurchaseOrder> o = update.from(PurchaseOrder.class);
      update.set(o.<String>get("customer"), "Grace").where(cb.equal(o.get("merchantId"), MERCHANT));
      return s.createMutationQuery(update).executeUpdate();
    });
    assertEquals(1, updated);
  }

  @Test
  void eachRenderedCriteriaQueryIsJudgedOnce() {
    QueryGuard guard = QueryGuards.of(unit.sessionFactory());
    String customer = "cache-" + UUID.randomUUID();
    long before = guard.evaluations();
    for (int attempt = 0; attempt < 3; attempt++) {
      // a shape no other test builds: Hibernate keeps one plan per criteria shape
      ShardKeyMissingException e = assertThrows(ShardKeyMissingException.class, () -> shards.forKey(MERCHANT)
          .fromSession(s -> {
            HibernateCriteriaBuilder cb = s.getCriteriaBuilder();
            CriteriaQuery<Long> q = cb.createQuery(Long.class);
            Root<PurchaseOrder> o = q.from(PurchaseOrder.class);
            return s.createQuery(q.select(o.get("id")).where(cb.notEqual(o.get("customer"), customer)))
                .getResultList();
          }));
      assertTrue(e.getMessage().contains(customer), e.getMessage());
    }
    assertEquals(before + 1, guard.evaluations(), "three equal criteria queries, one verdict, refused every time");
  }

  @Test
  void theScatterGatherBypassAdmitsAMarkedCriteriaQueryOnly() {
    List<PurchaseOrder> onThisShard = QueryGuard.bypass(() -> shards.forKey(MERCHANT).fromSession(
        s -> QueryGuard.scatterGather(s.createQuery(byCustomer(s, "Ada"))).getResultList()));
    assertEquals(1, onThisShard.size());

    IllegalStateException unmarked = assertThrows(IllegalStateException.class, () -> QueryGuard.bypass(
        () -> shards.forKey(MERCHANT).fromSession(s -> s.createQuery(byCustomer(s, "Ada")).getResultList())));
    assertTrue(unmarked.getMessage().contains("QueryGuard.scatterGather"), unmarked.getMessage());

    assertThrows(ShardKeyMissingException.class, () -> shards.forKey(MERCHANT).fromSession(
        s -> QueryGuard.scatterGather(s.createQuery(byCustomer(s, "Bob"))).getResultList()),
        "outside a bypass the mark alone permits nothing");
  }
}
