package io.shardwise.advisor.marketplace;

import jakarta.persistence.*;

@Entity
@Table(name = "sellers")

public class Seller {
  @Id Long id;
  String name;
}
