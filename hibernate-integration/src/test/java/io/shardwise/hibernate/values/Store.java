package io.shardwise.hibernate.values;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** The root of a co-location group whose id is its shard key. */
@Entity
public class Store {
  @Id
  @ShardKey
  private Long id;

  private String name;

  protected Store() {}

  public Store(long id, String name) {
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
