package io.shardwise.hibernate.defaultids;

import jakarta.persistence.Id;
import jakarta.persistence.MappedSuperclass;

/** One id for the whole model, declared once: shardwise.ids.default = snowflake gives it a generator. */
@MappedSuperclass
public abstract class BaseEntity {
  @Id
  protected Long id;

  public Long getId() {
    return id;
  }
}
