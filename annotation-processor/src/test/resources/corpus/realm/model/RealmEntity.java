package realm.model;

import io.shardwise.annotations.ScatterGather;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;

@Entity
@Table(name = "REALM")
@ScatterGather(queries = {"getAllRealmIds", "getRealmIdsWithProviderType", "nativeRealmIds"})
@NamedQueries({
    @NamedQuery(name = "getAllRealmIds", query = "select realm.id from RealmEntity realm"), // scatter
    @NamedQuery(name = "getRealmIdsWithProviderType", query = "select distinct c.realm.id from ComponentEntity c where c.providerType = :providerType"), // scatter
    @NamedQuery(name = "getRealmIdByName", query = "select realm.id from RealmEntity realm where realm.name = :name"), // lacks
    @NamedQuery(name = "getRealmById", query = "select realm from RealmEntity realm where realm.id = :id"), // pins
    @NamedQuery(name = "getRealmIfEnabled", query = "select realm from RealmEntity realm where realm = :realm and realm.enabled = true"), // pins
})
@NamedNativeQueries({
    @NamedNativeQuery(name = "nativeRealmById", query = "select * from REALM where ID = :id"), // pins
    @NamedNativeQuery(name = "nativeRealmByName", query = "select * from REALM where NAME = :name"), // lacks
    @NamedNativeQuery(name = "nativeRealmIds", query = "select ID from REALM"), // scatter
})
public class RealmEntity {
  @Id @ShardKey @Column(name = "ID") protected String id;
  @Column(name = "NAME", unique = true) protected String name;
  @Column(name = "ENABLED") protected boolean enabled;
}
