package io.shardwise.sample.spring;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A merchant: its id is its shard key, so the merchant and everything co-located with it share a shard. */
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
}
