package io.shardwise.hibernate.keypaths;

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
import java.util.ArrayList;
import java.util.List;

/**
 * A pet: its shard key is its owner's id, taken from {@link #owner}. The association and the key
 * share the column {@code owner_id}, as an existing {@code pets} table has it.
 */
@Entity
@Table(name = "kp_pet")
@CoLocated(with = Owner.class, via = "owner")
public class Pet {
  @Id
  @SnowflakeId
  private Long id;

  @ShardKey
  @Column(name = "owner_id")
  private Long ownerId;

  @ManyToOne(fetch = FetchType.LAZY)
  @JoinColumn(name = "owner_id", insertable = false, updatable = false)
  private Owner owner;

  @OneToMany(mappedBy = "pet", cascade = CascadeType.PERSIST)
  private List<Visit> visits = new ArrayList<>();

  private String name;

  protected Pet() {}

  public Pet(Owner owner, String name) {
    this.owner = owner;
    this.name = name;
  }

  public Visit addVisit(String reason) {
    Visit visit = new Visit(this, reason);
    visits.add(visit);
    return visit;
  }

  public Long getId() {
    return id;
  }

  public Long getOwnerId() {
    return ownerId;
  }
}
