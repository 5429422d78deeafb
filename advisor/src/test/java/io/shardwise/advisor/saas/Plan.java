package io.shardwise.advisor.saas;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;

@Entity
@Table(name = "plans")
@NamedQuery(name = "Plan.all", query = "select p from Plan p order by p.name")
public class Plan {
  @Id Integer id;
  String name;
}
