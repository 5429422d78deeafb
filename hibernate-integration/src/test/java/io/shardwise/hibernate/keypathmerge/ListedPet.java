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
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import java.util.LinkedHashSet;
import java.util.Set;

/** Listed by its owner, with no association back; it lists its own visits the same way. */
@Entity
@Table(name = "km_pet")
@CoLocated(with = ListedOwner.class, listedIn = "pets")
public class ListedPet {
  @Id
  @SnowflakeId
  private Long id;

  @ShardKey
  @Column(name = "owner_id")
  private Long ownerId;

  private String name;

  @OneToMany(cascade = CascadeType.ALL, orphanRemoval = true, fetch = FetchType.EAGER)
  @JoinColumn(name = "pet_id")
  private Set<ListedVisit> visits = new LinkedHashSet<>();

  protected ListedPet() {}

  public ListedPet(String name) {
    this.name = name;
  }

  public Long getId() {
    return id;
  }

  public Long getOwnerId() {
    return ownerId;
  }

  public void setOwnerId(Long ownerId) {
    this.ownerId = ownerId;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public Set<ListedVisit> getVisits() {
    return visits;
  }
}
