package io.shardwise.hibernate.defaultids;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;

@Entity
@Table(name = "default_id_visit")
@CoLocated(with = Pet.class)
public class Visit extends BaseEntity {
  @ShardKey
  @Column(name = "owner_id")
  private Long ownerId;

  protected Visit() {}

  public Visit(long ownerId) {
    this.ownerId = ownerId;
  }
}
