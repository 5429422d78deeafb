package io.shardwise.hibernate.keypaths;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.id.SnowflakeId;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;

/** A visit of a pet, two hops from the owner whose shard it shares: its key column is its own. */
@Entity
@Table(name = "kp_visit")
@CoLocated(with = Owner.class, via = "pet.owner")
public class Visit {
  @Id
  @SnowflakeId
  private Long id;

  @ShardKey
  @Column(name = "owner_id")
  private Long ownerId;

  @ManyToOne(fetch = FetchType.LAZY)
  private Pet pet;

  private String reason;

  protected Visit() {}

  public Visit(Pet pet, String reason) {
    this.pet = pet;
    this.reason = reason;
  }

  public Long getId() {
    return id;
  }

  public Long getOwnerId() {
    return ownerId;
  }

  public void setOwnerId(Long ownerId) {
    this.ownerId = ownerId;
  }

  public void setReason(String reason) {
    this.reason = reason;
  }

  public void setPet(Pet pet) {
    this.pet = pet;
  }
}
