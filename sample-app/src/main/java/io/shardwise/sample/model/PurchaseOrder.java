package io.shardwise.sample.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.id.SnowflakeId;
import jakarta.persistence.CascadeType;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import java.util.ArrayList;
import java.util.List;

/**
 * An order sits beside its merchant: same shard key, so joins and transactions stay on one shard.
 * Its id is a Snowflake id: unique across shards and instances, time-ordered for the B-tree.
 */
@Entity
@Table(name = "purchase_order")
@CoLocated(with = Merchant.class)
public class PurchaseOrder {
  @Id
  @SnowflakeId
  private Long id;

  @ShardKey
  @Column(name = "merchant_id", nullable = false)
  private Long merchantId;

  private String customer;

  private String status = "PENDING";

  private java.time.Instant placedAt = java.time.Instant.now();

  @OneToMany(mappedBy = "order", cascade = CascadeType.ALL)
  private List<OrderItem> items = new ArrayList<>();

  protected PurchaseOrder() {}

  public PurchaseOrder(long merchantId, String customer) {
    this.merchantId = merchantId;
    this.customer = customer;
  }

  public PurchaseOrder placedAt(java.time.Instant when, String status) {
    this.placedAt = when;
    this.status = status;
    return this;
  }

  public PurchaseOrder add(String sku, int quantity) {
    items.add(new OrderItem(this, sku, quantity));
    return this;
  }

  public Long getId() {
    return id;
  }

  public Long getMerchantId() {
    return merchantId;
  }

  public void setMerchantId(Long merchantId) {
    this.merchantId = merchantId;
  }

  public String getStatus() {
    return status;
  }

  public void setStatus(String status) {
    this.status = status;
  }

  public List<OrderItem> getItems() {
    return items;
  }
}
