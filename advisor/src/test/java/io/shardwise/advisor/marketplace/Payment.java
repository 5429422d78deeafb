package io.shardwise.advisor.marketplace;

import jakarta.persistence.*;

@Entity
@Table(name = "payments")
@NamedQuery(name = "Payment.ofBuyer", query = "select p from Payment p join p.order o where o.buyer.id = :buyerId")
public class Payment {
  @Id Long id;
  @ManyToOne(optional = false) @JoinColumn(name = "order_id") PurchaseOrder order;
}
