package io.shardwise.hibernate.guard;

import io.shardwise.annotations.ScatterGather;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;

/** A sharded entity whose keyless named query is permitted by {@code @ScatterGather}. */
@Entity
@NamedQuery(name = "Ledger.all", query = "from Ledger l order by l.account")
@NamedQuery(name = "Ledger.ofAccount", query = "from Ledger l where l.account = :account")
@ScatterGather(queries = "Ledger.all")
public class Ledger {
  @Id
  @ShardKey
  private Long account;

  protected Ledger() {}
}
