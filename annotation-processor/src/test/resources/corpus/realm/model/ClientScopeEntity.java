package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;
import java.util.Collection;

@Entity
@Table(name = "CLIENT_SCOPE")
@CoLocated(with = RealmEntity.class, via = "realm")
@NamedQueries({
    @NamedQuery(name = "getClientScopeIds", query = "select scope.id from ClientScopeEntity scope where scope.realm.id = :realm"), // pins
    @NamedQuery(name = "getClientScopeByName", query = "select scope from ClientScopeEntity scope where scope.realm = :realm and scope.name = :name"), // pins
    @NamedQuery(name = "getClientScopeByNameAnyRealm", query = "select scope from ClientScopeEntity scope where scope.name = :name"), // lacks
    @NamedQuery(name = "deleteClientScopesByRealm", query = "delete from ClientScopeEntity scope where scope.realm = :realm"), // pins
    @NamedQuery(name = "getClientScopesWithMapper", query = "select scope from ClientScopeEntity scope where scope.realmId = :realmId and exists (select m from scope.protocolMappers m where m.protocol = :protocol)"), // pins
})
public class ClientScopeEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "REALM_ID", insertable = false, updatable = false) protected RealmEntity realm;
  @Column(name = "NAME") protected String name;
  @OneToMany(mappedBy = "clientScope") protected Collection<ProtocolMapperEntity> protocolMappers;
}
