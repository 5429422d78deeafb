package io.shardwise.hibernate.superkeys;

import jakarta.persistence.Access;
import jakarta.persistence.AccessType;
import jakarta.persistence.Id;
import jakarta.persistence.MappedSuperclass;

/** The id declared once on a getter: property access. */
@MappedSuperclass
@Access(AccessType.PROPERTY)
public abstract class PropertyIdBase {
  private Long id;

  @Id
  public Long getId() {
    return id;
  }

  public void setId(Long id) {
    this.id = id;
  }
}
