package io.shardwise.hibernate.rw;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

@Entity
public class Product {
  @Id @ShardKey
  private Long sku;
  private int stock;

  protected Product() {}

  public Product(long sku, int stock) {
    this.sku = sku;
    this.stock = stock;
  }

  public int getStock() {
    return stock;
  }

  public void take() {
    stock--;
  }
}
