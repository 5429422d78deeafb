package io.shardwise.hibernate.keypathmerge;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.id.SnowflakeId;
import jakarta.persistence.CascadeType;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import java.util.LinkedHashSet;
import java.util.Set;

@Entity
@Table(name = "km_linked_pet")
@CoLocated(with = LinkedOwner.class, via = "owner")
public class LinkedPet {
  @Id
  @SnowflakeId
  private Long id;

  @ShardKey
  @Column(name = "owner_id")
  private Long ownerId;

  @ManyToOne(fetch = FetchType.LAZY)
  @JoinColumn(name = "owner_id", insertable = false, updatable = false)
  private LinkedOwner owner;

  @OneToMany(mappedBy = "pet", cascade = CascadeType.ALL, orphanRemoval = true, fetch = FetchType.EAGER)
  private Set<LinkedVisit> visits = new LinkedHashSet<>();

  private String name;

  protected LinkedPet() {}

  LinkedPet(LinkedOwner owner, String name) {
    this.owner = owner;
    this.name = name;
  }

  public Long getOwnerId() {
    return ownerId;
  }

  public void setOwnerId(Long ownerId) {
    this.ownerId = ownerId;
  }

  public void setName(String name) {
    this.name = name;
  }

  public Set<LinkedVisit> getVisits() {
    return visits;
  }

  public LinkedVisit addVisit(String reason) {
    LinkedVisit visit = new LinkedVisit(this, reason);
    visits.add(visit);
    return visit;
  }
}
