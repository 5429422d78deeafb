package io.shardwise.hibernate.keypathalternatives;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.id.SnowflakeId;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;

/** One of the two kinds of parent a protocol mapper has; its key is taken from its realm, whose
 * foreign key is the key column. */
@Entity
@Table(name = "ka_client_scope")
@CoLocated(with = Realm.class, via = "realm")
public class ClientScope {
  @Id
  @SnowflakeId
  public Long id;

  @ShardKey
  @Column(name = "realm_id")
  public Long realmId;

  @ManyToOne
  @JoinColumn(name = "realm_id", insertable = false, updatable = false)
  public Realm realm;

  protected ClientScope() {}

  public ClientScope(Realm realm) {
    this.realm = realm;
  }
}
