package io.shardwise.hibernate.keypathmerge;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.CascadeType;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import java.util.ArrayList;
import java.util.List;

/** The same root with back-references: its pets reach it through {@code via = "owner"}. */
@Entity
@Table(name = "km_linked_owner")
public class LinkedOwner {
  @Id
  @ShardKey
  private Long id;

  @OneToMany(mappedBy = "owner", cascade = CascadeType.ALL, orphanRemoval = true, fetch = FetchType.EAGER)
  private List<LinkedPet> pets = new ArrayList<>();

  protected LinkedOwner() {}

  public LinkedOwner(long id) {
    this.id = id;
  }

  public Long getId() {
    return id;
  }

  public List<LinkedPet> getPets() {
    return pets;
  }

  public LinkedPet addPet(String name) {
    LinkedPet pet = new LinkedPet(this, name);
    pets.add(pet);
    return pet;
  }
}
