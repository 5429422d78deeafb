package io.shardwise.sample.adopted;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.CascadeType;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

/** A pet, stored beside its owner. */
@Entity
@Table(name = "pets")
@CoLocated(with = Owner.class, via = "owner")
public class Pet {
  @Id
  private Long id;

  @ShardKey
  @Column(name = "owner_id")
  private Long ownerId;

  private String name;

  private LocalDate birthDate;

  @ManyToOne
  @JoinColumn(name = "type_id")
  private PetType type;

  @ManyToOne(fetch = FetchType.LAZY)
  @JoinColumn(name = "owner_id", insertable = false, updatable = false)
  private Owner owner;

  @OneToMany(mappedBy = "pet", cascade = CascadeType.ALL)
  private List<Visit> visits = new ArrayList<>();

  protected Pet() {}

  Pet(Owner owner, String name, PetType type) {
    this.owner = owner;
    this.name = name;
    this.type = type;
  }

  public Visit addVisit(LocalDate date, String description) {
    Visit visit = new Visit(this, date, description);
    visits.add(visit);
    return visit;
  }

  public Long getId() {
    return id;
  }

  public String getName() {
    return name;
  }

  public PetType getType() {
    return type;
  }

  public Owner getOwner() {
    return owner;
  }

  public List<Visit> getVisits() {
    return visits;
  }
}
