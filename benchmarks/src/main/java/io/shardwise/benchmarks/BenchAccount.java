package io.shardwise.benchmarks;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The account that {@link CrossShardTransactionWorkload} moves money between; sharded by its id. */
@Entity
@Table(name = "bench_account")
public class BenchAccount {
  @Id
  @ShardKey
  private Long id;

  private long balance;

  protected BenchAccount() {}

  public BenchAccount(long id, long balance) {
    this.id = id;
    this.balance = balance;
  }

  public Long getId() {
    return id;
  }

  public long getBalance() {
    return balance;
  }

  public void withdraw(long amount) {
    if (balance < amount) {
      throw new IllegalStateException("insufficient funds in account " + id + ": " + balance + " < " + amount);
    }
    balance -= amount;
  }

  public void deposit(long amount) {
    balance += amount;
  }

  /** Compensation of a saga step: undoes a withdrawal or a deposit unconditionally. */
  public void adjust(long delta) {
    balance += delta;
  }
}
