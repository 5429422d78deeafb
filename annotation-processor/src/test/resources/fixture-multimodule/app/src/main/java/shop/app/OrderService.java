package shop.app;

import jakarta.persistence.EntityManager;

/** Queries that pin their shard key: the build passes while these are all there is. */
public class OrderService {
  static final String OPEN_ORDERS = "from Ord o where o.merchantId = :merchant and o.status = 'OPEN'";

  private final EntityManager em;

  public OrderService(EntityManager em) {
    this.em = em;
  }

  public Object openOrders(long merchant) {
    return em.createQuery(OPEN_ORDERS).setParameter("merchant", merchant).getResultList();
  }

  public Object merchant(long id) {
    return em.createQuery("from Merchant m where m.id = :id").setParameter("id", id).getResultList();
  }

  public Object countries() {
    return em.createQuery("from Country c order by c.name").getResultList();
  }
}
