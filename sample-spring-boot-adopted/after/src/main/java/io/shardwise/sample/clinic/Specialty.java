package io.shardwise.sample.clinic;

import io.shardwise.annotations.ReferenceTable;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;

@Entity
@ReferenceTable
@Table(name = "specialties")
public class Specialty extends BaseEntity {
  private String name;

  public String getName() {
    return name;
  }
}
