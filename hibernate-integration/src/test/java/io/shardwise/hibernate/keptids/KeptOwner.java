package io.shardwise.hibernate.keptids;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A root sharded by its Integer identity id, as mapped before Shardwise. */
@Entity
@Table(name = "kept_owner")
public class KeptOwner {
  @Id
  @ShardKey
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  private Integer id;

  private String name;

  protected KeptOwner() {}

  public KeptOwner(String name) {
    this.name = name;
  }

  public Integer getId() {
    return id;
  }

  public String getName() {
    return name;
  }
}
