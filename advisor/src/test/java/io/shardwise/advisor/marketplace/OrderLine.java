package io.shardwise.advisor.marketplace;

import jakarta.persistence.*;

@Entity
@Table(name = "order_lines")
@NamedQuery(name = "OrderLine.ofOrder", query = "select l from OrderLine l where l.order.id = :orderId")
@NamedQuery(name = "OrderLine.ofBuyer",
    query = "select l from OrderLine l join l.order o where o.buyer.id = :buyerId")
public class OrderLine {
  @Id Long id;
  int quantity;
  @ManyToOne(optional = false) @JoinColumn(name = "order_id") PurchaseOrder order;
  @ManyToOne @JoinColumn(name = "product_id") Product product;
}
