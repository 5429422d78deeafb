package io.shardwise.spring.boot.autoconfigure.shop;

import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.id.SnowflakeId;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A root whose shard key is its generated id: created through {@code @WithShard(newRoot = Brand.class)}. */
@Entity
public class Brand {
  @Id
  @SnowflakeId
  @ShardKey
  private Long id;

  private String name;

  protected Brand() {}

  public Brand(String name) {
    this.name = name;
  }

  public Long getId() {
    return id;
  }
}
