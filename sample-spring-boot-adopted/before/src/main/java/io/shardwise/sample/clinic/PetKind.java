package io.shardwise.sample.clinic;

import jakarta.persistence.Entity;
import jakarta.persistence.Table;

/** A kind of pet (cat, dog, ...): the choices of the pet form. */
@Entity
@Table(name = "pet_kinds")
public class PetKind extends BaseEntity {
  private String name;

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  @Override
  public String toString() {
    return name;
  }
}
