package io.shardwise.hibernate.keypathmerge;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.CascadeType;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import java.util.ArrayList;
import java.util.List;

/**
 * The root of a web application's usual shape: it lists its pets in a unidirectional
 * {@code @OneToMany @JoinColumn}, and a form merges it back detached with the pets it edited.
 */
@Entity
@Table(name = "km_owner")
public class ListedOwner {
  @Id
  @ShardKey
  private Long id;

  private String name;

  @OneToMany(cascade = CascadeType.ALL, orphanRemoval = true, fetch = FetchType.EAGER)
  @JoinColumn(name = "owner_id", insertable = false, updatable = false)
  private List<ListedPet> pets = new ArrayList<>();

  protected ListedOwner() {}

  public ListedOwner(long id, String name) {
    this.id = id;
    this.name = name;
  }

  public Long getId() {
    return id;
  }

  public void setName(String name) {
    this.name = name;
  }

  public List<ListedPet> getPets() {
    return pets;
  }
}
