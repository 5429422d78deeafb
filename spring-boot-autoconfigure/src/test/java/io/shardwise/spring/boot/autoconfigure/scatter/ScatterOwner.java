package io.shardwise.spring.boot.autoconfigure.scatter;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

@Entity
@Table(name = "scatter_owner")
public class ScatterOwner {
  @Id
  @ShardKey
  private Long id;

  private String lastName;

  private String city;

  protected ScatterOwner() {}

  public ScatterOwner(long id, String lastName, String city) {
    this.id = id;
    this.lastName = lastName;
    this.city = city;
  }

  public Long getId() {
    return id;
  }

  public String getLastName() {
    return lastName;
  }

  public String getCity() {
    return city;
  }
}
