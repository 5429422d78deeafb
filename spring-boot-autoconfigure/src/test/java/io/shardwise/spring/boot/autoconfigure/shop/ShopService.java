package io.shardwise.spring.boot.autoconfigure.shop;

import io.shardwise.spring.WithShard;
import jakarta.persistence.EntityManager;
import jakarta.persistence.LockModeType;
import jakarta.persistence.PersistenceContext;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class ShopService {
  @PersistenceContext
  private EntityManager em;

  private final OrderRepository orders;

  public ShopService(OrderRepository orders) {
    this.orders = orders;
  }

  /** Which PostgreSQL server a statement of the current transaction reaches. */
  public record Server(int port, boolean inRecovery) {}

  /** A new root: the shard is chosen by weight, and persist gives the brand an id that routes there. */
  @WithShard(newRoot = Brand.class)
  @Transactional
  public Brand createBrand(String name) {
    Brand brand = new Brand(name);
    em.persist(brand);
    return brand;
  }

  @WithShard(key = "#merchantId")
  @Transactional
  public PurchaseOrder place(long merchantId, long orderId, long totalCents) {
    return orders.save(new PurchaseOrder(orderId, merchantId, "NEW", totalCents));
  }

  @WithShard(key = "#merchantId")
  @Transactional
  public Server serverOfWrites(long merchantId) {
    return server();
  }

  @WithShard(key = "#merchantId")
  @Transactional(readOnly = true)
  public Server serverOfReads(long merchantId) {
    return server();
  }

  @WithShard(key = "#order.merchantId")
  @Transactional(readOnly = true)
  public PurchaseOrder lockInReadOnly(PurchaseOrder order) {
    return em.find(PurchaseOrder.class, order.getId(), LockModeType.PESSIMISTIC_WRITE);
  }

  @WithShard(key = "#merchantId")
  @Transactional(readOnly = true)
  public PurchaseOrder read(long merchantId, long orderId) {
    return em.find(PurchaseOrder.class, orderId);
  }

  /** A merchant's name as a read-only transaction sees it (null: not there), and where it read. */
  public record Seen(String name, Server server) {}

  @WithShard(key = "#merchantId")
  @Transactional
  public void openMerchant(long merchantId, String name) {
    em.persist(new Merchant(merchantId, name));
  }

  @WithShard(key = "#merchantId")
  @Transactional
  public void renameMerchant(long merchantId, String name) {
    em.find(Merchant.class, merchantId).rename(name);
  }

  @WithShard(key = "#merchantId")
  @Transactional(readOnly = true)
  public Seen seeMerchant(long merchantId) {
    Merchant merchant = em.find(Merchant.class, merchantId);
    return new Seen(merchant == null ? null : merchant.getName(), server());
  }

  /** {@link #openMerchant} with no shard chosen: the persist's key binds the transaction. */
  @Transactional
  public void openMerchantWithoutAShard(long merchantId, String name) {
    em.persist(new Merchant(merchantId, name));
  }

  /** {@link #seeMerchant} with no shard chosen: the find's key binds the transaction. */
  @Transactional(readOnly = true)
  public Seen seeMerchantWithoutAShard(long merchantId) {
    Merchant merchant = em.find(Merchant.class, merchantId);
    return new Seen(merchant == null ? null : merchant.getName(), server());
  }

  private Server server() {
    Object[] row = (Object[]) em.createNativeQuery("select inet_server_port(), pg_is_in_recovery()").getSingleResult();
    return new Server(((Number) row[0]).intValue(), (Boolean) row[1]);
  }
}
