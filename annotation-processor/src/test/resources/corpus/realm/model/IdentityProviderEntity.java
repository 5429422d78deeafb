package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;

@Entity
@Table(name = "IDENTITY_PROVIDER")
@CoLocated(with = RealmEntity.class, via = "realm")
@NamedQueries({
    @NamedQuery(name = "findIdentityProviderByAlias", query = "select ip from IdentityProviderEntity ip where ip.realm.id = :realmId and ip.alias = :alias"), // pins
    @NamedQuery(name = "findIdentityProviderByAliasAndRealm", query = "select ip from IdentityProviderEntity ip where ip.realm = :realm and ip.alias = :alias"), // pins
    @NamedQuery(name = "findIdentityProvidersByOrganization", query = "select ip from IdentityProviderEntity ip where ip.realm = :realm and ip.organizationId = :orgId"), // pins
    @NamedQuery(name = "countIdentityProviders", query = "select count(ip) from IdentityProviderEntity ip where ip.realm = :realm"), // pins
    @NamedQuery(name = "deleteIdentityProvidersByRealm", query = "delete from IdentityProviderEntity ip where ip.realm = :realm"), // pins
    @NamedQuery(name = "findIdentityProviderByAliasAnyRealm", query = "select ip from IdentityProviderEntity ip where ip.alias = :alias"), // lacks
    @NamedQuery(name = "findEnabledIdentityProvidersOfRealms", query = "select ip from IdentityProviderEntity ip where ip.realm in :realms and ip.enabled = true"), // pins
    @NamedQuery(name = "findIdentityProvidersOfOtherRealms", query = "select ip from IdentityProviderEntity ip where ip.realm <> :realm"), // lacks
    @NamedQuery(name = "findBrokeredUsers", query = "select u from UserEntity u join IdentityProviderEntity ip on ip.realm = u.realm where ip.realm = :realm and ip.alias = :alias"), // pins
    @NamedQuery(name = "findIdentityProvidersOfRealmOrAlias", query = "select ip from IdentityProviderEntity ip where ip.realm = :realm or ip.alias = :alias"), // lacks
})
public class IdentityProviderEntity {
  @Id @Column(name = "INTERNAL_ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "REALM_ID", insertable = false, updatable = false) protected RealmEntity realm;
  @Column(name = "PROVIDER_ALIAS") protected String alias;
  @Column(name = "ORGANIZATION_ID") protected String organizationId;
  @Column(name = "ENABLED") protected boolean enabled;
}
