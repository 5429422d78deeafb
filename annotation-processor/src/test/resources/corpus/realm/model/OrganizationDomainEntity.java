package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;

@Entity
@Table(name = "ORG_DOMAIN")
@CoLocated(with = RealmEntity.class)
@NamedQueries({
    @NamedQuery(name = "getDomainsOfOrgByAlias", query = "select d from OrganizationDomainEntity d join OrganizationEntity o on o.id = d.organization.id where o.realmId = :realmId and o.alias = :alias"), // pins
    @NamedQuery(name = "getDomainsOfOrgByAliasAnyRealm", query = "select d from OrganizationDomainEntity d join OrganizationEntity o on o.id = d.organization.id where o.alias = :alias"), // lacks
    @NamedQuery(name = "getDomainByName", query = "select d from OrganizationDomainEntity d where d.name = :name"), // lacks
    @NamedQuery(name = "getDomainByNameInRealm", query = "select d from OrganizationDomainEntity d where d.name = :name and d.organization.realmId = :realmId"), // pins
    @NamedQuery(name = "deleteDomainsByRealm", query = "delete from OrganizationDomainEntity d where d.organization in (select o from OrganizationEntity o where o.realmId = :realmId)"), // pins
    @NamedQuery(name = "deleteDomainsOfOrg", query = "delete from OrganizationDomainEntity d where d.organization = :organization"), // lacks
    @NamedQuery(name = "getVerifiedDomainsJoinedOnRealm", query = "select d from OrganizationDomainEntity d, OrganizationEntity o where o.id = d.organization.id and o.realmId = :realmId and d.verified = true"), // pins
})
public class OrganizationDomainEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "ORG_ID") protected OrganizationEntity organization;
  @Column(name = "NAME") protected String name;
  @Column(name = "VERIFIED") protected boolean verified;
}
