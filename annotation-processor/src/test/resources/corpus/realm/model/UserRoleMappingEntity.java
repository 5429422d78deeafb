package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;

@Entity
@Table(name = "USER_ROLE_MAPPING")
@CoLocated(with = RealmEntity.class, via = "user.realm")
@NamedQueries({
    @NamedQuery(name = "userRoleMappings", query = "select m from UserRoleMappingEntity m where m.user = :user"), // lacks
    @NamedQuery(name = "userRoleMappingsInRealm", query = "select m from UserRoleMappingEntity m where m.user = :user and m.realmId = :realmId"), // pins
    @NamedQuery(name = "userHasRole", query = "select m from UserRoleMappingEntity m where m.realmId = :realmId and m.user.id = :userId and m.roleId = :roleId"), // pins
    @NamedQuery(name = "usersInRole", query = "select m.user from UserRoleMappingEntity m where m.roleId = :roleId"), // lacks
    @NamedQuery(name = "usersInRoleInRealm", query = "select m.user from UserRoleMappingEntity m where m.realmId = :realmId and m.roleId = :roleId"), // pins
    @NamedQuery(name = "deleteUserRoleMappingsByRealm", query = "delete from UserRoleMappingEntity mapping where mapping.user IN (select u from UserEntity u where u.realmId = :realmId)"), // pins
    @NamedQuery(name = "deleteUserRoleMappingsByRealmAndLink", query = "delete from UserRoleMappingEntity mapping where mapping.user IN (select u from UserEntity u where u.realmId = :realmId and u.federationLink = :link)"), // pins
    @NamedQuery(name = "deleteUserRoleMappingsByRole", query = "delete from UserRoleMappingEntity m where m.roleId = :roleId"), // lacks
    @NamedQuery(name = "deleteUserRoleMappingsByRoleInRealm", query = "delete from UserRoleMappingEntity m where m.realmId = :realmId and m.roleId = :roleId"), // pins
    @NamedQuery(name = "deleteUserRoleMappingsByUser", query = "delete from UserRoleMappingEntity m where m.user = :user"), // lacks
    @NamedQuery(name = "grantRoleToRealmUsers", query = "insert into UserRoleMappingEntity (id, realmId, roleId) select u.id, u.realmId, :roleId from UserEntity u where u.realmId = :realmId"), // pins
    @NamedQuery(name = "grantRoleWithoutRealm", query = "insert into UserRoleMappingEntity (id, roleId) select u.id, :roleId from UserEntity u where u.realmId = :realmId"), // lacks
})
public class UserRoleMappingEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "USER_ID") protected UserEntity user;
  @Column(name = "ROLE_ID") protected String roleId;
}
