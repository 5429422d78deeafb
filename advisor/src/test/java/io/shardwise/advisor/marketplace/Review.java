package io.shardwise.advisor.marketplace;

import jakarta.persistence.*;

@Entity
@Table(name = "reviews")
@NamedQuery(name = "Review.ofBuyer", query = "select r from Review r where r.buyer.id = :buyerId")
@NamedQuery(name = "Review.countOfBuyer", query = "select count(r) from Review r where r.buyer.id = :buyerId")
@NamedQuery(name = "Review.ofProduct", query = "select r from Review r where r.product.id = :productId")
public class Review {
  @Id Long id;
  int stars;
  @ManyToOne(optional = false) @JoinColumn(name = "product_id") Product product;
  @ManyToOne(optional = false) @JoinColumn(name = "buyer_id") Buyer buyer;
}
