package io.shardwise.hibernate.keptids;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;

/** A child with the inherited Integer identity id, sharded by its owner's id. */
@Entity
@Table(name = "kept_pet")
public class KeptPet extends KeptBase {
  @ShardKey
  @Column(name = "owner_id")
  private Integer ownerId;

  private String name;

  protected KeptPet() {}

  public KeptPet(int ownerId, String name) {
    this.ownerId = ownerId;
    this.name = name;
  }

  public Integer getOwnerId() {
    return ownerId;
  }
}
