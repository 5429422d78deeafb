package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;

@Entity
@Table(name = "CLIENT_SCOPE_CLIENT")
@CoLocated(with = RealmEntity.class, via = "client.realm")
@NamedQueries({
    @NamedQuery(name = "clientScopeClientMappingIdsByClient", query = "select m.clientScope.id from ClientScopeClientMappingEntity m where m.client.id = :clientId and m.defaultScope = :defaultScope"), // lacks
    @NamedQuery(name = "clientScopeClientMappingIdsByClientInRealm", query = "select m.clientScope.id from ClientScopeClientMappingEntity m where m.realmId = :realmId and m.client.id = :clientId and m.defaultScope = :defaultScope"), // pins
    @NamedQuery(name = "deleteClientScopeClientMapping", query = "delete from ClientScopeClientMappingEntity m where m.client = :client and m.clientScope = :clientScope"), // lacks
    @NamedQuery(name = "deleteClientScopeClientMappingByClient", query = "delete from ClientScopeClientMappingEntity m where m.client IN (select c from ClientEntity c where c.realmId = :realmId and c.clientId = :clientId)"), // pins
    @NamedQuery(name = "deleteClientScopeClientMappingsByRealm", query = "delete from ClientScopeClientMappingEntity m where m.client in (select c from ClientEntity c where c.realm = :realm)"), // pins
    @NamedQuery(name = "getScopesOfClient", query = "select m.clientScope from ClientScopeClientMappingEntity m join ClientEntity c on c.id = m.client.id where c.realmId = :realmId and c.clientId = :clientId"), // pins
    @NamedQuery(name = "getScopesOfClientNoRealm", query = "select m.clientScope from ClientScopeClientMappingEntity m join ClientEntity c on c.id = m.client.id where c.clientId = :clientId"), // lacks
    @NamedQuery(name = "getScopesJoinedByName", query = "select m from ClientScopeClientMappingEntity m join ClientEntity c on c.clientId = m.clientScope.name where c.realmId = :realmId"), // lacks
    @NamedQuery(name = "deleteMappingsOfScopesNamed", query = "delete from ClientScopeClientMappingEntity m where m.clientScope in (select s from ClientScopeEntity s where s.realm = :realm and s.name = :name)"), // pins
})
public class ClientScopeClientMappingEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "CLIENT_ID") protected ClientEntity client;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "SCOPE_ID") protected ClientScopeEntity clientScope;
  @Column(name = "DEFAULT_SCOPE") protected boolean defaultScope;
}
