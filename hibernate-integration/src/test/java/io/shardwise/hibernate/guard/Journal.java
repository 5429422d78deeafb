package io.shardwise.hibernate.guard;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.NamedQuery;

/** A sharded entity with a keyless named query and no permission for it. */
@Entity
@NamedQuery(name = "Journal.all", query = "from Journal j")
public class Journal {
  @Id
  @ShardKey
  private Long account;

  protected Journal() {}
}
