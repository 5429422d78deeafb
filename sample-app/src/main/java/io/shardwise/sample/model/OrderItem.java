package io.shardwise.sample.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.id.SnowflakeId;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;

@Entity
@Table(name = "order_item")
@CoLocated(with = PurchaseOrder.class)
public class OrderItem {
  @Id
  @SnowflakeId
  private Long id;

  @ShardKey
  @Column(name = "merchant_id", nullable = false)
  private Long merchantId;

  @ManyToOne
  private PurchaseOrder order;

  private String sku;
  private int quantity;

  protected OrderItem() {}

  OrderItem(PurchaseOrder order, String sku, int quantity) {
    this.order = order;
    this.merchantId = order.getMerchantId();
    this.sku = sku;
    this.quantity = quantity;
  }

  public String getSku() {
    return sku;
  }

  public int getQuantity() {
    return quantity;
  }
}
