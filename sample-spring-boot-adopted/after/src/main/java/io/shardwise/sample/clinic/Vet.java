package io.shardwise.sample.clinic;

import io.shardwise.annotations.ReferenceTable;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.JoinTable;
import jakarta.persistence.ManyToMany;
import jakarta.persistence.OrderBy;
import jakarta.persistence.Table;
import java.util.LinkedHashSet;
import java.util.Set;

@Entity
@ReferenceTable
@Table(name = "vets")
public class Vet extends BaseEntity {
  @Column(name = "first_name")
  private String firstName;

  @Column(name = "last_name")
  private String lastName;

  @ManyToMany(fetch = FetchType.EAGER)
  @JoinTable(name = "vet_specialties", joinColumns = @JoinColumn(name = "vet_id"),
      inverseJoinColumns = @JoinColumn(name = "specialty_id"))
  @OrderBy("name")
  private Set<Specialty> specialties = new LinkedHashSet<>();

  public String getName() {
    return firstName + " " + lastName;
  }

  public Set<Specialty> getSpecialties() {
    return specialties;
  }
}
