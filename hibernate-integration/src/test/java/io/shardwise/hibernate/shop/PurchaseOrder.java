package io.shardwise.hibernate.shop;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.CascadeType;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import jakarta.persistence.Column;
import jakarta.persistence.OneToMany;
import java.util.ArrayList;
import java.util.List;

@Entity
@Table(name = "purchase_order")
@CoLocated(with = Merchant.class)
public class PurchaseOrder {
  @Id
  private Long id;

  @ShardKey
  @Column(name = "merchant_id")
  private Long merchantId;

  private String customer;

  @OneToMany(mappedBy = "order", cascade = CascadeType.ALL)
  private List<OrderItem> items = new ArrayList<>();

  protected PurchaseOrder() {}

  public PurchaseOrder(long id, long merchantId, String customer) {
    this.id = id;
    this.merchantId = merchantId;
    this.customer = customer;
  }

  public OrderItem addItem(long itemId, String sku, int quantity) {
    OrderItem item = new OrderItem(itemId, this, sku, quantity);
    items.add(item);
    return item;
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

  public void setCustomer(String customer) {
    this.customer = customer;
  }

  public String getCustomer() {
    return customer;
  }

  public List<OrderItem> getItems() {
    return items;
  }
}
