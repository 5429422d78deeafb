package io.shardwise.advisor.marketplace;

import jakarta.persistence.*;

@Entity
@Table(name = "categories")
@NamedQuery(name = "Category.all", query = "select c from Category c")
public class Category {
  @Id Integer id;
  String name;
}
