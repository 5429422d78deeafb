package io.shardwise.hibernate.shop;

import io.shardwise.annotations.ReferenceTable;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

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
