package io.shardwise.hibernate.bank;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

@Entity
public class Account {
  @Id
  @ShardKey
  private Long id;

  private long balance;

  /** A frozen account refuses deposits: the business failure that makes a saga compensate. */
  private boolean frozen;

  protected Account() {}

  public Account(long id, long balance) {
    this.id = id;
    this.balance = balance;
  }

  public Long getId() {
    return id;
  }

  public long getBalance() {
    return balance;
  }

  public boolean isFrozen() {
    return frozen;
  }

  public void setFrozen(boolean frozen) {
    this.frozen = frozen;
  }

  public void withdraw(long amount) {
    if (balance < amount) {
      throw new IllegalStateException("insufficient funds in account " + id + ": " + balance + " < " + amount);
    }
    balance -= amount;
  }

  public void deposit(long amount) {
    if (frozen) {
      throw new IllegalStateException("account " + id + " is frozen");
    }
    balance += amount;
  }

  /** Compensation: undoes a withdrawal or a deposit whatever the account's state. */
  public void adjust(long delta) {
    balance += delta;
  }
}
