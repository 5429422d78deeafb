package io.shardwise.advisor.saas;

import io.shardwise.annotations.ReferenceTable;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

@Entity
@Table(name = "plans")
@ReferenceTable
public class Plan {
  @Id Integer id;
  String name;
}
