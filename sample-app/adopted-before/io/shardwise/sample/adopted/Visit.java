package io.shardwise.sample.adopted;

import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;
import java.time.LocalDate;

/** A visit of a pet, two levels below its owner. */
@Entity
@Table(name = "visits")
public class Visit {
  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  private Integer id;

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

  public Integer getId() {
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
