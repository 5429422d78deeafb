package io.shardwise.sample.spring;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A product with limited stock, sold in flash sales: checkouts lock its row on the merchant's primary. */
@Entity
@CoLocated(with = Merchant.class)
public class Product {
  @Id
  private String sku;

  @ShardKey
  @Column(name = "merchant_id", nullable = false)
  private Long merchantId;

  private long priceCents;

  private int stock;

  protected Product() {}

  public Product(String sku, long merchantId, long priceCents, int stock) {
    this.sku = sku;
    this.merchantId = merchantId;
    this.priceCents = priceCents;
    this.stock = stock;
  }

  public String getSku() {
    return sku;
  }

  public Long getMerchantId() {
    return merchantId;
  }

  public long getPriceCents() {
    return priceCents;
  }

  public int getStock() {
    return stock;
  }

  /** Takes one item; false when none is left. */
  public boolean take() {
    if (stock == 0) {
      return false;
    }
    stock--;
    return true;
  }
}
