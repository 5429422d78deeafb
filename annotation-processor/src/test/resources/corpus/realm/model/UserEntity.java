package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ScatterGather;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;
import java.util.Collection;

@Entity
@Table(name = "USER_ENTITY")
@CoLocated(with = RealmEntity.class, via = "realm")
@ScatterGather(queries = {"countAllUsers", "getUsernamesEverywhere", "nativeCountAllUsers", "nativeUsernamesLike"})
@NamedQueries({
    @NamedQuery(name = "getAllUsersByRealm", query = "select u from UserEntity u where u.realmId = :realmId order by u.username"), // pins
    @NamedQuery(name = "getAllUsersByRealmExcludeServiceAccount", query = "select u from UserEntity u where u.realmId = :realmId and (u.serviceAccountClientLink is null) order by u.username"), // pins
    @NamedQuery(name = "searchForUserCount", query = "select count(u) from UserEntity u where u.realmId = :realmId"), // pins
    @NamedQuery(name = "getRealmUserByUsername", query = "select u from UserEntity u where u.username = :username and u.realmId = :realmId"), // pins
    @NamedQuery(name = "getRealmUserByEmail", query = "select u from UserEntity u where u.email = :email and u.realmId = :realmId"), // pins
    @NamedQuery(name = "getRealmUserByLastName", query = "select u from UserEntity u where u.lastName = :lastName and u.realmId = :realmId"), // pins
    @NamedQuery(name = "getRealmUserByServiceAccount", query = "select u from UserEntity u where u.serviceAccountClientLink = :clientInternalId and u.realmId = :realmId"), // pins
    @NamedQuery(name = "getRealmUserCount", query = "select count(u) from UserEntity u where u.realm = :realm"), // pins
    @NamedQuery(name = "getRealmUsersByAttributeNameAndValue", query = "select u from UserEntity u join u.attributes attr where u.realmId = :realmId and attr.name = :name and attr.value = :value"), // pins
    @NamedQuery(name = "deleteUsersByRealm", query = "delete from UserEntity u where u.realmId = :realmId"), // pins
    @NamedQuery(name = "deleteUsersByRealmAndLink", query = "delete from UserEntity u where u.realmId = :realmId and u.federationLink = :link"), // pins
    @NamedQuery(name = "getUsersCreatedSince", query = "select u from UserEntity u where u.realm.id = :realmId and u.createdTimestamp > :since"), // pins
    @NamedQuery(name = "getUsersOfRealms", query = "select u from UserEntity u where u.realm in :realms and u.enabled = true"), // pins
    @NamedQuery(name = "getRealmUserByUsernameOrEmail", query = "select u from UserEntity u where u.realmId = :realmId and (u.username = :value or u.email = :value)"), // pins
    @NamedQuery(name = "getUserByEmailAnyRealm", query = "select u from UserEntity u where u.email = :email"), // lacks
    @NamedQuery(name = "getUserById", query = "select u from UserEntity u where u.id = :id"), // lacks
    @NamedQuery(name = "getRealmUserByUsernameOrAnyEmail", query = "select u from UserEntity u where u.realmId = :realmId and u.username = :username or u.email = :email"), // lacks
    @NamedQuery(name = "getUsersNotInRealm", query = "select u from UserEntity u where u.realm <> :realm"), // lacks
    @NamedQuery(name = "countAllUsers", query = "select count(u) from UserEntity u"), // scatter
    @NamedQuery(name = "getUsernamesEverywhere", query = "select u.username from UserEntity u where u.email like :domain"), // scatter
})
@NamedNativeQueries({
    @NamedNativeQuery(name = "nativeUsersOfRealm", query = "select ID, USERNAME from USER_ENTITY where REALM_ID = :realmId order by USERNAME"), // pins
    @NamedNativeQuery(name = "nativeUserByUsername", query = "SELECT u.* FROM USER_ENTITY u WHERE u.REALM_ID = ? AND lower(u.USERNAME) = lower(?)"), // pins
    @NamedNativeQuery(name = "nativeUsersWithAttribute", query = "select u.ID from USER_ENTITY u join USER_ATTRIBUTE a on a.USER_ID = u.ID and a.REALM_ID = u.REALM_ID where u.REALM_ID = :realmId and a.NAME = :name and a.VALUE = :value"), // pins
    @NamedNativeQuery(name = "nativeUsersWithAttributeByForeignKey", query = "select u.ID from USER_ENTITY u join USER_ATTRIBUTE a on a.USER_ID = u.ID where u.REALM_ID = :realmId and a.NAME = :name"), // pins
    @NamedNativeQuery(name = "nativeUsersByAttributeRealm", query = "select u.ID from USER_ENTITY u join USER_ATTRIBUTE a on a.USER_ID = u.ID where a.REALM_ID = :realmId and a.NAME = :name"), // lacks
    @NamedNativeQuery(name = "nativeAttributesLeftJoinedToPinnedUsers", query = "select a.NAME from USER_ATTRIBUTE a left join USER_ENTITY u on u.ID = a.USER_ID and u.REALM_ID = :realmId"), // lacks
    @NamedNativeQuery(name = "nativeAttributesJoinedOnUsername", query = "select a.NAME from USER_ATTRIBUTE a join USER_ENTITY u on u.USERNAME = a.USER_ID where u.REALM_ID = :realmId"), // lacks
    @NamedNativeQuery(name = "nativeUserPage", query = "select u.ID, u.USERNAME from USER_ENTITY u where u.REALM_ID = :realmId and u.SERVICE_ACCOUNT_CLIENT_LINK is null order by u.USERNAME limit :max offset :first"), // pins
    @NamedNativeQuery(name = "nativeUsersOfRealms", query = "select * from USER_ENTITY where REALM_ID in (:realmIds) and ENABLED = true"), // pins
    @NamedNativeQuery(name = "nativeUserByEmailAnyRealm", query = "select * from USER_ENTITY where EMAIL = :email"), // lacks
    @NamedNativeQuery(name = "nativeUsersOrEmail", query = "select * from USER_ENTITY u where u.REALM_ID = :realmId or u.EMAIL = :email"), // lacks
    @NamedNativeQuery(name = "nativeUsersKeyAgainstColumn", query = "select * from USER_ENTITY u where u.REALM_ID = u.FEDERATION_LINK"), // lacks
    @NamedNativeQuery(name = "nativeUsersByRealmName", query = "select u.* from USER_ENTITY u join REALM r on r.ID = u.REALM_ID where r.NAME = :realmName"), // lacks
    @NamedNativeQuery(name = "nativeUsersByOtherTablesKey", query = "select u.* from USER_ENTITY u join CLIENT c on c.REALM_ID = :realmId where c.CLIENT_ID = :clientId"), // lacks
    @NamedNativeQuery(name = "nativeUsersWithHibernatePlaceholders", query = "select {u.*} from {h-schema}USER_ENTITY u where u.REALM_ID = :realmId"), // unchecked
    @NamedNativeQuery(name = "nativeUsersLocked", query = "select * from USER_ENTITY where REALM_ID = :realmId and ID = :id for no key update of USER_ENTITY nowait"), // pins
    @NamedNativeQuery(name = "nativeCountAllUsers", query = "select count(*) from USER_ENTITY"), // scatter
    @NamedNativeQuery(name = "nativeUsernamesLike", query = "select USERNAME from USER_ENTITY where EMAIL like :pattern"), // scatter
})
public class UserEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "REALM_ID", insertable = false, updatable = false) protected RealmEntity realm;
  @Column(name = "USERNAME") protected String username;
  @Column(name = "EMAIL") protected String email;
  @Column(name = "LAST_NAME") protected String lastName;
  @Column(name = "ENABLED") protected boolean enabled;
  @Column(name = "CREATED_TIMESTAMP") protected Long createdTimestamp;
  @Column(name = "FEDERATION_LINK") protected String federationLink;
  @Column(name = "SERVICE_ACCOUNT_CLIENT_LINK") protected String serviceAccountClientLink;
  @OneToMany(mappedBy = "user") protected Collection<UserAttributeEntity> attributes;
  @OneToMany(mappedBy = "user") protected Collection<CredentialEntity> credentials;
}
