package io.shardwise.hibernate.keptids;

import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.MappedSuperclass;

/** An existing application's id, declared once: an Integer filled by an identity column. */
@MappedSuperclass
public abstract class KeptBase {
  @Id
  @GeneratedValue(strategy = GenerationType.IDENTITY)
  protected Integer id;

  public Integer getId() {
    return id;
  }
}
