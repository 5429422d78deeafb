package io.shardwise.advisor.saas;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;

@Entity
@Table(name = "tenants")
@NamedQuery(name = "Tenant.byName", query = "select t from Tenant t where t.name = :name")
public class Tenant {
  @Id Long id;
  String name;
  @ManyToOne @JoinColumn(name = "plan_id") Plan plan;
}
