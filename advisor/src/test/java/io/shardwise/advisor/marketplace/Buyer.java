package io.shardwise.advisor.marketplace;

import jakarta.persistence.*;

@Entity
@Table(name = "buyers")
@NamedQuery(name = "Buyer.byEmail", query = "select b from Buyer b where b.email = :email")
public class Buyer {
  @Id Long id;
  @Column(unique = true) String email;
}
