package io.shardwise.sample.spring;

import io.shardwise.hibernate.ShardedSessions;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The shop's HTTP API. The shard of /merchants/{merchantId}/... is chosen by Shardwise's
 * interceptor from the path variable (shardwise.web.key-path-variable=merchantId), before any
 * transaction begins; the controller never names a shard.
 */
@RestController
public class ShopController {
  /** The header that carries a consistency token between a write and the client's later reads. */
  public static final String CONSISTENCY_TOKEN = "X-Consistency-Token";

  private final Shop shop;
  private final ShardedSessions shards;

  ShopController(Shop shop, ShardedSessions shards) {
    this.shop = shop;
    this.shards = shards;
  }

  public record NewMerchant(long id, String name, List<NewProduct> products) {}

  public record NewProduct(String sku, long priceCents, int stock) {}

  public record NewOrder(String customer, String sku, long totalCents) {}

  @PostMapping("/merchants")
  public Shop.Server openMerchant(@RequestBody NewMerchant merchant) {
    return shop.openMerchant(merchant.id(), merchant.name(), merchant.products().stream()
        .map(p -> new Product(p.sku(), merchant.id(), p.priceCents(), p.stock())).toList());
  }

  /**
   * Places an order. The response carries a consistency token (header X-Consistency-Token, set by
   * Shardwise): sent back, it makes the client's next reads see this order, whichever instance
   * serves them.
   */
  @PostMapping("/merchants/{merchantId}/orders")
  public Shop.Placed placeOrder(@PathVariable long merchantId, @RequestBody NewOrder order) {
    return shop.placeOrder(merchantId, order.customer(), order.sku(), order.totalCents());
  }

  /** The merchant's orders, newest first, read on a replica that has the client's own writes. */
  @GetMapping("/merchants/{merchantId}/orders")
  public Shop.Listing listOrders(@PathVariable long merchantId, @RequestParam(defaultValue = "0") int page,
      @RequestParam(defaultValue = "20") int size) {
    return shop.listOrders(merchantId, page, size);
  }

  @PostMapping("/merchants/{merchantId}/products/{sku}/checkout")
  public Shop.Checkout checkout(@PathVariable long merchantId, @PathVariable String sku,
      @RequestParam String customer) {
    return shop.checkout(merchantId, sku, customer);
  }

  @GetMapping("/merchants/{merchantId}/products/{sku}/sold")
  public long sold(@PathVariable long merchantId, @PathVariable String sku) {
    return shop.sold(merchantId, sku);
  }

  @GetMapping("/countries")
  public List<Country> countries() {
    return shop.countries();
  }

  /** Which shard owns a merchant (from the shard map; the answers above say which server actually served). */
  @GetMapping("/merchants/{merchantId}/shard")
  public String shardOf(@PathVariable long merchantId) {
    return shards.shardFor(merchantId);
  }
}
