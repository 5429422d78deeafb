package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ScatterGather;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;

@Entity
@Table(name = "KEYCLOAK_ROLE")
@CoLocated(with = RealmEntity.class, via = "realm")
@ScatterGather(queries = "getRoleCountPerRealm")
@NamedQueries({
    @NamedQuery(name = "getClientRoles", query = "select role from RoleEntity role where role.clientId = :client order by role.name"), // lacks
    @NamedQuery(name = "getClientRolesInRealm", query = "select role from RoleEntity role where role.realm = :realm and role.clientId = :client order by role.name"), // pins
    @NamedQuery(name = "getRealmRoles", query = "select role from RoleEntity role where role.clientRole = false and role.realm.id = :realm order by role.name"), // pins
    @NamedQuery(name = "getRealmRoleByName", query = "select role from RoleEntity role where role.clientRole = false and role.name = :name and role.realm.id = :realm"), // pins
    @NamedQuery(name = "searchForRealmRoles", query = "select role from RoleEntity role where role.clientRole = false and role.realm.id = :realm and (lower(role.name) like :search or lower(role.description) like :search) order by role.name"), // pins
    @NamedQuery(name = "deleteRolesByRealm", query = "delete from RoleEntity r where r.realmId = :realmId"), // pins
    @NamedQuery(name = "getRoleIdsFromIdList", query = "select role.id from RoleEntity role where role.realm.id = :realm and role.id in :ids order by role.name"), // pins
    @NamedQuery(name = "getRolesById", query = "select role from RoleEntity role where role.id in :ids"), // lacks
    @NamedQuery(name = "getRoleCountPerRealm", query = "select r.realmId, count(r) from RoleEntity r group by r.realmId"), // scatter
})
public class RoleEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "REALM", insertable = false, updatable = false) protected RealmEntity realm;
  @Column(name = "NAME") protected String name;
  @Column(name = "DESCRIPTION") protected String description;
  @Column(name = "CLIENT") protected String clientId;
  @Column(name = "CLIENT_ROLE") protected boolean clientRole;
}
