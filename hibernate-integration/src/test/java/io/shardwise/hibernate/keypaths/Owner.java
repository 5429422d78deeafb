package io.shardwise.hibernate.keypaths;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The root of the owner → pet → visit group: its id is the shard key. */
@Entity
@Table(name = "kp_owner")
public class Owner {
  @Id
  @ShardKey
  private Long id;

  private String name;

  protected Owner() {}

  public Owner(long id, String name) {
    this.id = id;
    this.name = name;
  }

  public Long getId() {
    return id;
  }
}
