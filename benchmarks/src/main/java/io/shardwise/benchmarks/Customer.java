package io.shardwise.benchmarks;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/**
 * The row that {@link PointLookupWorkload} reads by primary key. The same class serves all three
 * systems: {@code @ShardKey} means nothing to plain Hibernate or to ShardingSphere.
 */
@Entity
@Table(name = "customer")
public class Customer {
  /** The table every system reads; created by {@link PointLookupWorkload}, not by Hibernate. */
  static final String DDL = "create table customer (id bigint primary key, name varchar(64) not null,"
      + " email varchar(128) not null, country char(2) not null, balance_cents bigint not null)";

  @Id
  @ShardKey
  private Long id;

  @Column(name = "name")
  private String name;

  @Column(name = "email")
  private String email;

  @Column(name = "country")
  private String country;

  @Column(name = "balance_cents")
  private long balanceCents;

  protected Customer() {}

  public Long getId() {
    return id;
  }

  public String getName() {
    return name;
  }

  public String getEmail() {
    return email;
  }

  public String getCountry() {
    return country;
  }

  public long getBalanceCents() {
    return balanceCents;
  }
}
