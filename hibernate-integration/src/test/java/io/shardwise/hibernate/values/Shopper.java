package io.shardwise.hibernate.values;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A co-location group of its own, keyed by its id: joining it with a store crosses groups. */
@Entity
public class Shopper {
  @Id
  @ShardKey
  private Long id;

  private String name;

  /** The store this shopper prefers: a plain column, since the two groups may live apart. */
  private Long favouriteStore;

  protected Shopper() {}

  public Shopper(long id, String name, long favouriteStore) {
    this.id = id;
    this.name = name;
    this.favouriteStore = favouriteStore;
  }

  public String getName() {
    return name;
  }
}
