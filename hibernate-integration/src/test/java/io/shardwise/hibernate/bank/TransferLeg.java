package io.shardwise.hibernate.bank;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;

/** One side of a transfer, written in the same local transaction as the balance change it records. */
@Entity
@CoLocated(with = Account.class)
public class TransferLeg {
  @Id
  private String id;

  @ShardKey
  private Long accountId;

  private String transferId;

  private long amount;

  protected TransferLeg() {}

  public TransferLeg(String transferId, long accountId, long amount) {
    this.id = transferId + "/" + accountId;
    this.transferId = transferId;
    this.accountId = accountId;
    this.amount = amount;
  }
}
