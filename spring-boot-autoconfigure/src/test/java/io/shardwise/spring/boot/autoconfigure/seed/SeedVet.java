package io.shardwise.spring.boot.autoconfigure.seed;

import io.shardwise.annotations.ReferenceTable;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinTable;
import jakarta.persistence.ManyToMany;
import jakarta.persistence.Table;
import java.util.Set;

@Entity
@ReferenceTable
@Table(name = "seed_vet")
public class SeedVet {
  @Id
  private Integer id;

  private String name;

  @ManyToMany
  @JoinTable(name = "seed_vet_kinds")
  private Set<SeedKind> kinds;

  protected SeedVet() {}
}
