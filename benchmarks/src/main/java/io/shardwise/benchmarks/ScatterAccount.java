package io.shardwise.benchmarks;

import io.shardwise.annotations.GlobalIndex;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Index;
import jakarta.persistence.Table;

/**
 * The row of {@link ScatterGatherWorkload}: sharded by id, found by email through a unique
 * {@code @GlobalIndex}. The entity table also gets an ordinary index on email, so that the
 * scatter query it is compared with does an index lookup on every shard, not a scan.
 */
@Entity
@Table(name = "scatter_account", indexes = @Index(name = "scatter_account_email", columnList = "email"))
public class ScatterAccount {
  @Id
  @ShardKey
  private Long id;

  @GlobalIndex(unique = true)
  @Column(name = "email", nullable = false, length = 128)
  private String email;

  @Column(name = "status", nullable = false, length = 16)
  private String status;

  @Column(name = "balance_cents", nullable = false)
  private long balanceCents;

  protected ScatterAccount() {}

  public ScatterAccount(long id, String email, String status, long balanceCents) {
    this.id = id;
    this.email = email;
    this.status = status;
    this.balanceCents = balanceCents;
  }

  public Long getId() {
    return id;
  }

  public String getEmail() {
    return email;
  }

  public String getStatus() {
    return status;
  }

  public long getBalanceCents() {
    return balanceCents;
  }
}
