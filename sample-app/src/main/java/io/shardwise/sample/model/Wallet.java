package io.shardwise.sample.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** A merchant's payout balance, on the merchant's shard: a transfer between two merchants spans shards. */
@Entity
@CoLocated(with = Merchant.class)
public class Wallet {
  @Id
  @ShardKey
  private Long merchantId;

  private long balanceCents;

  protected Wallet() {}

  public Wallet(long merchantId, long balanceCents) {
    this.merchantId = merchantId;
    this.balanceCents = balanceCents;
  }

  public long getBalanceCents() {
    return balanceCents;
  }

  public void withdraw(long cents) {
    if (cents > balanceCents) {
      throw new IllegalStateException("insufficient funds: " + balanceCents + " < " + cents);
    }
    balanceCents -= cents;
  }

  public void deposit(long cents) {
    balanceCents += cents;
  }
}
