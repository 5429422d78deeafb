package io.shardwise.hibernate.keypaths;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.id.SnowflakeId;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** Held by {@link Household#residents()} and with no association back: its key comes from that list. */
@Entity
@Table(name = "kp_resident")
@CoLocated(with = Household.class, listedIn = "residents")
public class Resident {
  @Id
  @SnowflakeId
  private Long id;

  @ShardKey
  @Column(name = "household_id")
  private Long householdId;

  private String name;

  protected Resident() {}

  public Resident(String name) {
    this.name = name;
  }
}
