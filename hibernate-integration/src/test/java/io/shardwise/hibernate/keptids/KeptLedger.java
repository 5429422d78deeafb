package io.shardwise.hibernate.keptids;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.SequenceGenerator;
import jakarta.persistence.Table;

/** A root sharded by its Long id from a database sequence, as mapped before Shardwise. */
@Entity
@Table(name = "kept_ledger")
public class KeptLedger {
  @Id
  @ShardKey
  @GeneratedValue(strategy = GenerationType.SEQUENCE, generator = "kept_ledger_seq")
  @SequenceGenerator(name = "kept_ledger_seq", sequenceName = "kept_ledger_seq", allocationSize = 1)
  private Long id;

  private String label;

  protected KeptLedger() {}

  public KeptLedger(String label) {
    this.label = label;
  }

  public Long getId() {
    return id;
  }
}
