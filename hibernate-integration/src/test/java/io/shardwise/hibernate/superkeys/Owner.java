package io.shardwise.hibernate.superkeys;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;

/** A root sharded by the superclass's id, marked on the getter that overrides the superclass's. */
@Entity
@Table(name = "superkey_owner")
public class Owner extends IdBase {
  protected Owner() {}

  public Owner(long id) {
    this.id = id;
  }

  @ShardKey
  @Override
  public Long getId() {
    return super.getId();
  }
}
