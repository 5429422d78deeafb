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
@Table(name = "tasks")
@CoLocated(with = Tenant.class, via = "project.tenant")
public class Task {
  @Id Long id;
  boolean done;
  @ShardKey @Column(name = "tenant_id") Long tenantId;
  @ManyToOne(optional = false) @JoinColumn(name = "project_id") Project project;
  @ManyToOne @JoinColumn(name = "assignee_id") Member assignee;
}
