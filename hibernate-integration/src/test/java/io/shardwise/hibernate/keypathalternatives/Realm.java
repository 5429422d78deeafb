package io.shardwise.hibernate.keypathalternatives;

import io.shardwise.annotations.ShardKey;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** The tenant: the root of the realm → client, client scope → protocol mapper group; its id is the key. */
@Entity
@Table(name = "ka_realm")
public class Realm {
  @Id
  @ShardKey
  public Long id;

  protected Realm() {}

  public Realm(long id) {
    this.id = id;
  }
}
