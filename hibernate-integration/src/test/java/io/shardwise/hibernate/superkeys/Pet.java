package io.shardwise.hibernate.superkeys;

import io.shardwise.annotations.CoLocated;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;

/** Co-located with its owner through the key column its superclass declares. */
@Entity
@Table(name = "superkey_pet")
@CoLocated(with = Owner.class)
public class Pet extends OwnedBase {
  protected Pet() {}

  public Pet(long id, long ownerId) {
    this.id = id;
    this.ownerId = ownerId;
  }
}
