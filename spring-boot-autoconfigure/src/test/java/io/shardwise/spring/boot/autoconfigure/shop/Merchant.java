package io.shardwise.spring.boot.autoconfigure.shop;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

@Entity
public class Merchant {
  @Id
  @ShardKey
  private Long id;

  private String name;

  protected Merchant() {}

  public Merchant(long id, String name) {
    this.id = id;
    this.name = name;
  }

  public Long getId() {
    return id;
  }

  public String getName() {
    return name;
  }

  public void rename(String name) {
    this.name = name;
  }
}
