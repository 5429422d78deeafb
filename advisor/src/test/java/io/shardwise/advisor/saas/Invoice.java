package io.shardwise.advisor.saas;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;
import java.math.BigDecimal;

/** Holds its tenant's id as a plain column, without an association. */
@Entity
@Table(name = "invoices")
@NamedQuery(name = "Invoice.ofTenant", query = "select i from Invoice i where i.tenantId = :tenantId")
public class Invoice {
  @Id Long id;
  @Column(name = "tenant_id") Long tenantId;
  BigDecimal amount;
}
