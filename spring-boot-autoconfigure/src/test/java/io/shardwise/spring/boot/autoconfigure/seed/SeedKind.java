package io.shardwise.spring.boot.autoconfigure.seed;

import io.shardwise.annotations.ReferenceTable;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

@Entity
@ReferenceTable
@Table(name = "seed_kind")
public class SeedKind {
  @Id
  private Integer id;

  private String name;

  protected SeedKind() {}
}
