package io.shardwise.advisor.saas;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;

@Entity
@Table(name = "projects")
@NamedQuery(name = "Project.ofTenant", query = "select p from Project p where p.tenant.id = :tenantId")
@NamedQuery(name = "Project.byId", query = "select p from Project p where p.id = :id")
public class Project {
  @Id Long id;
  String title;
  @ManyToOne @JoinColumn(name = "tenant_id") Tenant tenant;
}
