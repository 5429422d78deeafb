package io.shardwise.sample.clinic;

import jakarta.persistence.Entity;
import jakarta.persistence.Table;

@Entity
@Table(name = "specialties")
public class Specialty extends BaseEntity {
  private String name;

  public String getName() {
    return name;
  }
}
