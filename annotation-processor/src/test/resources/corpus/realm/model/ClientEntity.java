package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ScatterGather;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;
import java.util.Collection;

@Entity
@Table(name = "CLIENT")
@CoLocated(with = RealmEntity.class, via = "realm")
@ScatterGather(queries = "getAllClientIdsEverywhere")
@NamedQueries({
    @NamedQuery(name = "getClientIdsByRealm", query = "select client.id from ClientEntity client where client.realmId = :realm order by client.clientId"), // pins
    @NamedQuery(name = "getAlwaysDisplayInConsoleClients", query = "select client.id from ClientEntity client where client.alwaysDisplayInConsole = true and client.realmId = :realm order by client.clientId"), // pins
    @NamedQuery(name = "findClientIdByClientId", query = "select client.id from ClientEntity client where client.clientId = :clientId and client.realmId = :realm"), // pins
    @NamedQuery(name = "searchClientsByClientId", query = "select client.id from ClientEntity client where lower(client.clientId) like lower(concat('%',:clientId,'%')) and client.realmId = :realm order by client.clientId"), // pins
    @NamedQuery(name = "getRealmClientsCount", query = "select count(client) from ClientEntity client where client.realmId = :realm"), // pins
    @NamedQuery(name = "findClientByClientIdAnyRealm", query = "select client from ClientEntity client where client.clientId = :clientId"), // lacks
    @NamedQuery(name = "deleteClientsByRealm", query = "delete from ClientEntity c where c.realm = :realm"), // pins
    @NamedQuery(name = "getClientsWithMapperProtocol", query = "select distinct c from ClientEntity c join c.protocolMappers pm where c.realmId = :realm and pm.protocol = :protocol"), // pins
    @NamedQuery(name = "getClientsHavingMapper", query = "select c from ClientEntity c where c.realmId = :realm and exists (select pm from c.protocolMappers pm where pm.name = :name)"), // pins
    @NamedQuery(name = "getClientsHavingMapperAnyRealm", query = "select c from ClientEntity c where exists (select pm from c.protocolMappers pm where pm.name = :name)"), // lacks
    @NamedQuery(name = "getAllClientIdsEverywhere", query = "select c.clientId from ClientEntity c"), // scatter
})
public class ClientEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "REALM_ID", insertable = false, updatable = false) protected RealmEntity realm;
  @Column(name = "CLIENT_ID") protected String clientId;
  @Column(name = "ALWAYS_DISPLAY_IN_CONSOLE") protected boolean alwaysDisplayInConsole;
  @OneToMany(mappedBy = "client") protected Collection<ProtocolMapperEntity> protocolMappers;
}
