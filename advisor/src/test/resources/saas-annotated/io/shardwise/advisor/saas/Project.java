package io.shardwise.advisor.saas;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;

@Entity
@Table(name = "projects")
@CoLocated(with = Tenant.class, via = "tenant")
public class Project {
  @Id Long id;
  String title;
  @ShardKey @Column(name = "tenant_id") Long tenantId;
  @ManyToOne @JoinColumn(name = "tenant_id", insertable = false, updatable = false) Tenant tenant;
}
