package io.shardwise.spring.boot.autoconfigure.shop;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

@Entity
@Table(name = "purchase_order")
@CoLocated(with = Merchant.class)
public class PurchaseOrder {
  @Id
  private Long id;

  @ShardKey
  @Column(name = "merchant_id", nullable = false)
  private Long merchantId;

  private String status;

  private long totalCents;

  protected PurchaseOrder() {}

  public PurchaseOrder(long id, long merchantId, String status, long totalCents) {
    this.id = id;
    this.merchantId = merchantId;
    this.status = status;
    this.totalCents = totalCents;
  }

  public Long getId() {
    return id;
  }

  public Long getMerchantId() {
    return merchantId;
  }

  public String getStatus() {
    return status;
  }

  public void setStatus(String status) {
    this.status = status;
  }

  public long getTotalCents() {
    return totalCents;
  }
}
