package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;
import java.util.Set;

@Entity
@Table(name = "ORG")
@CoLocated(with = RealmEntity.class)
@NamedQueries({
    @NamedQuery(name = "getByOrgName", query = "select distinct o from OrganizationEntity o where o.realmId = :realmId and o.name = :name"), // pins
    @NamedQuery(name = "getByOrgAlias", query = "select o from OrganizationEntity o where o.realmId = :realmId and o.alias = :alias"), // pins
    @NamedQuery(name = "getByDomainName", query = "select distinct o from OrganizationEntity o inner join o.domains d where o.realmId = :realmId and d.name = :name"), // pins
    @NamedQuery(name = "getOrgCount", query = "select count(o) from OrganizationEntity o where o.realmId = :realmId"), // pins
    @NamedQuery(name = "searchOrgsByName", query = "select o from OrganizationEntity o where o.realmId = :realmId and lower(o.name) like lower(concat('%', :search, '%')) order by o.name"), // pins
    @NamedQuery(name = "getOrgByGroup", query = "select o from OrganizationEntity o where o.groupId = :groupId"), // lacks
    @NamedQuery(name = "getOrgByNameAnyRealm", query = "select o from OrganizationEntity o where o.name = :name"), // lacks
    @NamedQuery(name = "deleteOrganizationsByRealm", query = "delete from OrganizationEntity o where o.realmId = :realmId"), // pins
    @NamedQuery(name = "getOrgsWithVerifiedDomain", query = "select o from OrganizationEntity o where o.realmId = :realmId and exists (select d from o.domains d where d.verified = true)"), // pins
})
public class OrganizationEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @Column(name = "NAME") protected String name;
  @Column(name = "ALIAS") protected String alias;
  @Column(name = "GROUP_ID") protected String groupId;
  @OneToMany(mappedBy = "organization") protected Set<OrganizationDomainEntity> domains;
}
