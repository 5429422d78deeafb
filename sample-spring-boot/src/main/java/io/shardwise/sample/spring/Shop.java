package io.shardwise.sample.spring;

import io.shardwise.spring.WithShard;
import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import java.util.List;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.PageRequest;
import org.springframework.data.domain.Sort;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The shop's use cases. Methods called from a request under /merchants/{merchantId}/... run in the
 * shard context the web interceptor opened from the path variable; {@link #openMerchant} chooses
 * its shard with {@link WithShard}. Every answer says which server served it. There is no
 * Shardwise code here besides {@code @WithShard}: read-your-writes across requests is the
 * consistency token the starter puts on responses that wrote (shardwise.web.consistency-header).
 */
@Service
public class Shop {
  /** The PostgreSQL server a transaction ran on: its port, and whether it is a replica. */
  public record Server(int port, boolean replica) {}

  public record OrderView(long id, String customer, String sku, long totalCents) {
    static OrderView of(ShopOrder o) {
      return new OrderView(o.getId(), o.getCustomer(), o.getSku(), o.getTotalCents());
    }
  }

  public record Listing(Server servedBy, long total, List<OrderView> orders) {}

  public record Placed(Server servedBy, OrderView order) {}

  public record Checkout(Server servedBy, boolean sold, int stockLeft, OrderView order) {}

  @PersistenceContext
  private EntityManager em;

  private final MerchantRepository merchants;
  private final OrderRepository orders;
  private final ProductRepository products;
  private final CountryRepository countries;

  Shop(MerchantRepository merchants, OrderRepository orders, ProductRepository products,
      CountryRepository countries) {
    this.merchants = merchants;
    this.orders = orders;
    this.products = products;
    this.countries = countries;
  }

  @WithShard(key = "#merchantId")
  @Transactional
  public Server openMerchant(long merchantId, String name, List<Product> catalogue) {
    merchants.save(new Merchant(merchantId, name));
    products.saveAll(catalogue);
    return server(em);
  }

  /** A read-write transaction: the merchant's primary. */
  @Transactional
  public Placed placeOrder(long merchantId, String customer, String sku, long totalCents) {
    ShopOrder order = orders.save(new ShopOrder(merchantId, customer, sku, totalCents));
    return new Placed(server(em), OrderView.of(order));
  }

  /**
   * A read-only transaction: a replica of the merchant's shard (the primary when none is healthy,
   * or when the request's consistency token holds a write that the replicas have not replayed).
   */
  @Transactional(readOnly = true)
  public Listing listOrders(long merchantId, int page, int size) {
    Page<ShopOrder> found = orders.findByMerchantId(merchantId,
        PageRequest.of(page, size, Sort.by(Sort.Direction.DESC, "placedAt").and(Sort.by("id"))));
    return new Listing(server(em), found.getTotalElements(), found.map(OrderView::of).getContent());
  }

  /**
   * A flash-sale checkout: the product's row is locked (SELECT ... FOR NO KEY UPDATE on the
   * primary) so that concurrent checkouts sell each item once.
   */
  @Transactional
  public Checkout checkout(long merchantId, String sku, String customer) {
    Product product = products.lockForCheckout(merchantId, sku).orElseThrow(() -> new IllegalArgumentException(
        "Merchant " + merchantId + " sells no product " + sku));
    if (!product.take()) {
      return new Checkout(server(em), false, 0, null);
    }
    ShopOrder order = orders.save(new ShopOrder(merchantId, customer, sku, product.getPriceCents()));
    return new Checkout(server(em), true, product.getStock(), OrderView.of(order));
  }

  @Transactional(readOnly = true)
  public long sold(long merchantId, String sku) {
    return orders.countSold(merchantId, sku);
  }

  /** Reference data, read without a shard: served by a replica of any shard. */
  @Transactional(readOnly = true)
  public List<Country> countries() {
    return countries.findAll(Sort.by("code"));
  }

  private static Server server(EntityManager em) {
    Object[] row = (Object[]) em.createNativeQuery("select inet_server_port(), pg_is_in_recovery()").getSingleResult();
    return new Server(((Number) row[0]).intValue(), (Boolean) row[1]);
  }
}
