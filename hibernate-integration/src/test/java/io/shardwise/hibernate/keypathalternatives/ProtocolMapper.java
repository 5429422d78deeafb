package io.shardwise.hibernate.keypathalternatives;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import io.shardwise.hibernate.id.SnowflakeId;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.FetchType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.Table;

/** Belongs to a client or to a client scope: one path per parent, the first that is set gives the key. */
@Entity
@Table(name = "ka_protocol_mapper")
@CoLocated(with = Realm.class, via = {"client.realm", "clientScope.realm"})
public class ProtocolMapper {
  @Id
  @SnowflakeId
  public Long id;

  @ShardKey
  @Column(name = "realm_id")
  public Long realmId;

  @ManyToOne(fetch = FetchType.LAZY)
  @JoinColumn(name = "client_id")
  public Client client;

  @ManyToOne(fetch = FetchType.LAZY)
  @JoinColumn(name = "client_scope_id")
  public ClientScope clientScope;

  public String name;

  protected ProtocolMapper() {}

  public ProtocolMapper(Client client, ClientScope clientScope, String name) {
    this.client = client;
    this.clientScope = clientScope;
    this.name = name;
  }
}
