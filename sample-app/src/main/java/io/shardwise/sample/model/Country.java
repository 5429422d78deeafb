package io.shardwise.sample.model;

import io.shardwise.annotations.ReferenceTable;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** Small and read everywhere: copied to every shard. */
@Entity
@ReferenceTable
public class Country {
  @Id
  private String code;

  private String name;

  protected Country() {}

  public Country(String code, String name) {
    this.code = code;
    this.name = name;
  }

  public String getCode() {
    return code;
  }

  public String getName() {
    return name;
  }
}
