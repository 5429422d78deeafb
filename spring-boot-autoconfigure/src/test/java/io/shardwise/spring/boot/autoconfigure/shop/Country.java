package io.shardwise.spring.boot.autoconfigure.shop;

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

  public String getCode() {
    return code;
  }

  public String getName() {
    return name;
  }
}
