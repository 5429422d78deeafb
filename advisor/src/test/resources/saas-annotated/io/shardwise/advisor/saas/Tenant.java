package io.shardwise.advisor.saas;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;

@Entity
@Table(name = "tenants")
public class Tenant {
  @Id @ShardKey Long id;
  String name;
  @ManyToOne @JoinColumn(name = "plan_id") Plan plan;
}
