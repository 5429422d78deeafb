package io.shardwise.hibernate.superkeys;

import jakarta.persistence.Id;
import jakarta.persistence.MappedSuperclass;

/** The id declared once for the model, field access; subclasses choose whether it is their shard key. */
@MappedSuperclass
public abstract class IdBase {
  @Id
  protected Long id;

  public Long getId() {
    return id;
  }
}
