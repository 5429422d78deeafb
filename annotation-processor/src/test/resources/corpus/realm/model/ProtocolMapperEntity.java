package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ScatterGather;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;

/** Belongs to a client or to a client scope: one via path per parent, the first that is set gives the key. */
@Entity
@Table(name = "PROTOCOL_MAPPER")
@CoLocated(with = RealmEntity.class, via = {"client.realm", "clientScope.realm"})
@ScatterGather(queries = {"getMapperCountByProtocol", "nativeMapperCountPerProtocol"})
@NamedQueries({
    @NamedQuery(name = "getMappersOfClient", query = "select pm from ProtocolMapperEntity pm where pm.client = :client"), // lacks
    @NamedQuery(name = "getMappersOfClientInRealm", query = "select pm from ProtocolMapperEntity pm where pm.client = :client and pm.realmId = :realmId"), // pins
    @NamedQuery(name = "getMappersOfClientsOrScopesOfRealm", query = "select pm from ProtocolMapperEntity pm where pm.client.realmId = :realmId or pm.clientScope.realm.id = :realmId"), // pins
    @NamedQuery(name = "getMappersOfClientsOfRealmOrNamed", query = "select pm from ProtocolMapperEntity pm where pm.client.realmId = :realmId or pm.name = :name"), // lacks
    @NamedQuery(name = "getMappersOfScopeByName", query = "select pm from ProtocolMapperEntity pm where pm.clientScope.realm = :realm and pm.clientScope.name = :name"), // pins
    @NamedQuery(name = "deleteClientMappersByRealm", query = "delete from ProtocolMapperEntity pm where pm.client IN (select c from ClientEntity c where c.realmId = :realmId)"), // pins
    @NamedQuery(name = "deleteScopeMappersByRealm", query = "delete from ProtocolMapperEntity pm where pm.clientScope in (select s from ClientScopeEntity s where s.realm.id = :realmId)"), // pins
    @NamedQuery(name = "getMapperByNameAnyRealm", query = "select pm from ProtocolMapperEntity pm where pm.name = :name"), // lacks
    @NamedQuery(name = "getMappersOfClientByClientId", query = "select pm from ProtocolMapperEntity pm join ClientEntity c on pm.client = c where c.realm = :realm and c.clientId = :clientId"), // pins
    @NamedQuery(name = "getMappersOfClientOrScope", query = "select pm from ProtocolMapperEntity pm where pm.realmId = :realmId and (pm.client = :client or pm.clientScope = :scope)"), // pins
    @NamedQuery(name = "getMapperCountByProtocol", query = "select pm.protocol, count(pm) from ProtocolMapperEntity pm group by pm.protocol"), // scatter
})
@NamedNativeQueries({
    @NamedNativeQuery(name = "nativeMappersOfClient", query = "select m.* from PROTOCOL_MAPPER m where m.REALM_ID = :realmId and m.CLIENT_ID = :clientId"), // pins
    @NamedNativeQuery(name = "nativeMappersOfClientOrScope", query = "select m.* from PROTOCOL_MAPPER m where m.REALM_ID = :realmId and (m.CLIENT_ID = :id or m.CLIENT_SCOPE_ID = :id)"), // pins
    @NamedNativeQuery(name = "nativeMapperNamesWithClients", query = "select m.NAME, c.CLIENT_ID from PROTOCOL_MAPPER m left join CLIENT c on c.ID = m.CLIENT_ID and c.REALM_ID = m.REALM_ID where m.REALM_ID = :realmId"), // pins
    @NamedNativeQuery(name = "nativeMappersOfClientAnyRealm", query = "select m.* from PROTOCOL_MAPPER m where m.CLIENT_ID = :clientId"), // lacks
    @NamedNativeQuery(name = "nativeMapperCountPerProtocol", query = "select PROTOCOL, count(*) from PROTOCOL_MAPPER group by PROTOCOL"), // scatter
})
public class ProtocolMapperEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "CLIENT_ID") protected ClientEntity client;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "CLIENT_SCOPE_ID") protected ClientScopeEntity clientScope;
  @Column(name = "NAME") protected String name;
  @Column(name = "PROTOCOL") protected String protocol;
}
