package io.shardwise.sample.adopted;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A reference list: every shard holds all of it. */
@Entity
@Table(name = "types")
public class PetType {
  @Id
  private Integer id;

  private String name;

  protected PetType() {}

  public PetType(Integer id, String name) {
    this.id = id;
    this.name = name;
  }

  public Integer getId() {
    return id;
  }

  public String getName() {
    return name;
  }
}
