package io.shardwise.hibernate.superkeys;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Access;
import jakarta.persistence.AccessType;
import jakarta.persistence.Entity;
import jakarta.persistence.Table;

/** A root of property access sharded by the superclass's id, marked on the overriding getter. */
@Entity
@Table(name = "superkey_clinic")
@Access(AccessType.PROPERTY)
public class Clinic extends PropertyIdBase {
  protected Clinic() {}

  public Clinic(long id) {
    setId(id);
  }

  @ShardKey
  @Override
  public Long getId() {
    return super.getId();
  }
}
