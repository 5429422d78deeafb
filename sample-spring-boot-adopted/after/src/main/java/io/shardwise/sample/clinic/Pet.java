package io.shardwise.sample.clinic;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.CascadeType;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.OneToMany;
import jakarta.persistence.OrderBy;
import jakarta.persistence.Table;
import java.time.LocalDate;
import java.util.LinkedHashSet;
import java.util.Set;
import org.springframework.format.annotation.DateTimeFormat;

@Entity
@Table(name = "pets")
@CoLocated(with = Owner.class, listedIn = "pets")
public class Pet extends BaseEntity {
  @ShardKey
  @Column(name = "owner_id")
  private Integer ownerId;

  private String name;

  @Column(name = "birth_date")
  @DateTimeFormat(iso = DateTimeFormat.ISO.DATE)
  private LocalDate birthDate;

  @ManyToOne
  @JoinColumn(name = "kind_id")
  private PetKind kind;

  @OneToMany(cascade = CascadeType.ALL, fetch = FetchType.EAGER)
  @JoinColumn(name = "pet_id")
  @OrderBy("date")
  private Set<Visit> visits = new LinkedHashSet<>();

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public LocalDate getBirthDate() {
    return birthDate;
  }

  public void setBirthDate(LocalDate birthDate) {
    this.birthDate = birthDate;
  }

  public PetKind getKind() {
    return kind;
  }

  public void setKind(PetKind kind) {
    this.kind = kind;
  }

  public Set<Visit> getVisits() {
    return visits;
  }

  public void addVisit(Visit visit) {
    visits.add(visit);
  }
}
