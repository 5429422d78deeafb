package io.shardwise.sample.model;

import io.shardwise.annotations.GlobalIndex;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A shopper, sharded by id, found by email through a global index (one account per email). */
@Entity
public class Customer {
  @Id
  @ShardKey
  private Long id;

  @GlobalIndex(unique = true)
  private String email;

  private String name;

  protected Customer() {}

  public Customer(long id, String email, String name) {
    this.id = id;
    this.email = email;
    this.name = name;
  }

  public Long getId() {
    return id;
  }

  public String getName() {
    return name;
  }
}
