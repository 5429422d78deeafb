package io.shardwise.advisor.saas;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;
import java.math.BigDecimal;

@Entity
@Table(name = "invoices")
@CoLocated(with = Tenant.class)
public class Invoice {
  @Id Long id;
  @ShardKey @Column(name = "tenant_id") Long tenantId;
  BigDecimal amount;
}
