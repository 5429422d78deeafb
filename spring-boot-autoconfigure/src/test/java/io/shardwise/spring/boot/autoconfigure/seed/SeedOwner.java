package io.shardwise.spring.boot.autoconfigure.seed;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

@Entity
@Table(name = "seed_owner")
public class SeedOwner {
  @Id
  @ShardKey
  private Long id;

  private String name;

  protected SeedOwner() {}

  public Long getId() {
    return id;
  }

  public String getName() {
    return name;
  }
}
