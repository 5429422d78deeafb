package io.shardwise.sample.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A merchant's product with its stock: sold under a row lock on the primary, never from a replica's view. */
@Entity
@CoLocated(with = Merchant.class)
public class Product {
  @Id
  private Long sku;

  @ShardKey
  @Column(name = "merchant_id", nullable = false)
  private Long merchantId;

  private String name;
  private int stock;

  protected Product() {}

  public Product(long sku, long merchantId, String name, int stock) {
    this.sku = sku;
    this.merchantId = merchantId;
    this.name = name;
    this.stock = stock;
  }

  public int getStock() {
    return stock;
  }

  public boolean takeOne() {
    if (stock <= 0) {
      return false;
    }
    stock--;
    return true;
  }
}
