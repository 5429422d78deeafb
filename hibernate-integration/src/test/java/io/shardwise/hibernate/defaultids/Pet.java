package io.shardwise.hibernate.defaultids;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;

@Entity
@Table(name = "default_id_pet")
public class Pet extends BaseEntity {
  @ShardKey
  @Column(name = "owner_id")
  private Long ownerId;

  protected Pet() {}

  public Pet(long ownerId) {
    this.ownerId = ownerId;
  }
}
