package io.shardwise.hibernate.keypathmerge;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.id.SnowflakeId;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;

/** Two hops from its owner, through the intermediate pet. */
@Entity
@Table(name = "km_linked_visit")
@CoLocated(with = LinkedOwner.class, via = "pet.owner")
public class LinkedVisit {
  @Id
  @SnowflakeId
  private Long id;

  @ShardKey
  @Column(name = "owner_id")
  private Long ownerId;

  @ManyToOne(fetch = FetchType.LAZY)
  private LinkedPet pet;

  private String reason;

  protected LinkedVisit() {}

  LinkedVisit(LinkedPet pet, String reason) {
    this.pet = pet;
    this.reason = reason;
  }

  public Long getOwnerId() {
    return ownerId;
  }
}
