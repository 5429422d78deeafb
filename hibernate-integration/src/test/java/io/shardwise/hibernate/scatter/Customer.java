package io.shardwise.hibernate.scatter;

import io.shardwise.annotations.GlobalIndex;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A customer sharded by id and found by email through a unique global index. */
@Entity
public class Customer {
  @Id
  @ShardKey
  private Long id;

  @GlobalIndex(unique = true)
  private String email;

  protected Customer() {}

  public Customer(long id, String email) {
    this.id = id;
    this.email = email;
  }

  public Long getId() {
    return id;
  }

  public String getEmail() {
    return email;
  }

  public void setEmail(String email) {
    this.email = email;
  }
}
