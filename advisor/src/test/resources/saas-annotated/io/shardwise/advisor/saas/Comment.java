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
@Table(name = "comments")
@CoLocated(with = Tenant.class, via = "task.project.tenant")
public class Comment {
  @Id Long id;
  String body;
  @ShardKey @Column(name = "tenant_id") Long tenantId;
  @ManyToOne @JoinColumn(name = "task_id") Task task;
}
