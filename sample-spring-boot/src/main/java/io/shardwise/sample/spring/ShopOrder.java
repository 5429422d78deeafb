package io.shardwise.sample.spring;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ReadYourWrites;
import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.id.SnowflakeId;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.time.Instant;

/** An order, on its merchant's shard; a scope that wrote one reads it back even from a lagging replica. */
@Entity
@Table(name = "shop_order")
@CoLocated(with = Merchant.class)
@ReadYourWrites(mode = ReadYourWrites.Mode.LSN, maxWaitMillis = 0)
public class ShopOrder {
  @Id
  @SnowflakeId
  private Long id;

  @ShardKey
  @Column(name = "merchant_id", nullable = false)
  private Long merchantId;

  private String customer;

  private String sku;

  private long totalCents;

  private Instant placedAt = Instant.now();

  protected ShopOrder() {}

  public ShopOrder(long merchantId, String customer, String sku, long totalCents) {
    this.merchantId = merchantId;
    this.customer = customer;
    this.sku = sku;
    this.totalCents = totalCents;
  }

  public Long getId() {
    return id;
  }

  public Long getMerchantId() {
    return merchantId;
  }

  public String getCustomer() {
    return customer;
  }

  public String getSku() {
    return sku;
  }

  public long getTotalCents() {
    return totalCents;
  }

  public Instant getPlacedAt() {
    return placedAt;
  }
}
