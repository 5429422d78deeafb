package io.shardwise.sample.adopted;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;
import java.time.LocalDate;

/** A visit of a pet, two levels below its owner. */
@Entity
@Table(name = "visits")
@CoLocated(with = Owner.class, via = "pet.owner")
public class Visit {
  @Id
  private Long id;

  @ShardKey
  @Column(name = "owner_id")
  private Long ownerId;

  private LocalDate visitDate;

  private String description;

  @ManyToOne(fetch = FetchType.LAZY)
  private Pet pet;

  protected Visit() {}

  Visit(Pet pet, LocalDate visitDate, String description) {
    this.pet = pet;
    this.visitDate = visitDate;
    this.description = description;
  }

  public Long getId() {
    return id;
  }

  public LocalDate getVisitDate() {
    return visitDate;
  }

  public String getDescription() {
    return description;
  }

  public Pet getPet() {
    return pet;
  }
}
