package io.shardwise.hibernate.superkeys;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.MappedSuperclass;

/** The key column of everything an owner owns, declared once. */
@MappedSuperclass
public abstract class OwnedBase extends IdBase {
  @ShardKey
  @Column(name = "owner_id")
  protected Long ownerId;
}
