package io.shardwise.advisor.marketplace;

import jakarta.persistence.*;

@Entity
@Table(name = "products")
@NamedQuery(name = "Product.ofSeller", query = "select p from Product p where p.seller.id = :sellerId")
@NamedQuery(name = "Product.search", query = "select p from Product p where p.title like :text")
public class Product {
  @Id Long id;
  String title;
  @ManyToOne(optional = false) @JoinColumn(name = "seller_id") Seller seller;
  @ManyToOne @JoinColumn(name = "category_id") Category category;
}
