package io.shardwise.spring.boot.autoconfigure.seed;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

@Entity
@Table(name = "seed_pet")
@CoLocated(with = SeedOwner.class)
public class SeedPet {
  @Id
  private Long id;

  @ShardKey
  @Column(name = "owner_id", nullable = false)
  private Long ownerId;

  private String name;

  protected SeedPet() {}

  public String getName() {
    return name;
  }
}
