package io.shardwise.hibernate.keypathmerge;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.id.SnowflakeId;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** Listed by a pet, itself listed by its owner: the key comes through the intermediate pet. */
@Entity
@Table(name = "km_visit")
@CoLocated(with = ListedPet.class, listedIn = "visits")
public class ListedVisit {
  @Id
  @SnowflakeId
  private Long id;

  @ShardKey
  @Column(name = "owner_id")
  private Long ownerId;

  private String reason;

  protected ListedVisit() {}

  public ListedVisit(String reason) {
    this.reason = reason;
  }

  public Long getOwnerId() {
    return ownerId;
  }
}
