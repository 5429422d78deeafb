package io.shardwise.hibernate.scatter;

import io.shardwise.annotations.ReferenceTable;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** A reference table: the same rows on every shard. */
@Entity
@Table(name = "region_name")
@ReferenceTable
public class RegionName {
  @Id
  private String code;

  private String label;

  protected RegionName() {}

  public String getCode() {
    return code;
  }

  public String getLabel() {
    return label;
  }
}
