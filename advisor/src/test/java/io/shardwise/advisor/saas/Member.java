package io.shardwise.advisor.saas;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.NamedQuery;
import jakarta.persistence.Table;

@Entity
@Table(name = "members")
@NamedQuery(name = "Member.byEmail", query = "select m from Member m where m.email = :email")
@NamedQuery(name = "Member.ofTenant", query = "select m from Member m where m.tenant.id = :tenantId")
public class Member {
  @Id Long id;
  @Column(unique = true) String email;
  @ManyToOne @JoinColumn(name = "tenant_id") Tenant tenant;
}
