package io.shardwise.sample.spring;

import io.shardwise.annotations.ReferenceTable;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** Reference data: the same rows on every shard, readable without choosing one. */
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
