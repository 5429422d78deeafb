package io.shardwise.hibernate.keypaths;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.CascadeType;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import java.util.ArrayList;
import java.util.List;

/**
 * A root that lists its children in a unidirectional {@code @OneToMany @JoinColumn}: the join column
 * is the residents' key column, written from {@link Resident}'s key, so the collection only reads it.
 */
@Entity
@Table(name = "kp_household")
public class Household {
  @Id
  @ShardKey
  private Long id;

  @OneToMany(cascade = CascadeType.PERSIST)
  @JoinColumn(name = "household_id", insertable = false, updatable = false)
  private List<Resident> residents = new ArrayList<>();

  protected Household() {}

  public Household(long id) {
    this.id = id;
  }

  public void add(Resident resident) {
    residents.add(resident);
  }

  public List<Resident> residents() {
    return residents;
  }
}
