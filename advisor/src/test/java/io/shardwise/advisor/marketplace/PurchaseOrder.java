package io.shardwise.advisor.marketplace;

import jakarta.persistence.*;

@Entity
@Table(name = "orders")
@NamedQuery(name = "PurchaseOrder.ofBuyer", query = "select o from PurchaseOrder o where o.buyer.id = :buyerId")
@NamedQuery(name = "PurchaseOrder.openOfBuyer",
    query = "select o from PurchaseOrder o where o.buyer.id = :buyerId and o.shipped = false")
@NamedQuery(name = "PurchaseOrder.toShip",
    query = "select o from PurchaseOrder o where o.seller.id = :sellerId and o.shipped = false")
public class PurchaseOrder {
  @Id Long id;
  boolean shipped;
  @ManyToOne(optional = false) @JoinColumn(name = "buyer_id") Buyer buyer;
  @ManyToOne(optional = false) @JoinColumn(name = "seller_id") Seller seller;
}
