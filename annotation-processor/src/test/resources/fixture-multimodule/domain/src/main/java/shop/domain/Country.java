package shop.domain;

import io.shardwise.annotations.ReferenceTable;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

@Entity
@ReferenceTable
public class Country {
  @Id
  String code;

  String name;
}
