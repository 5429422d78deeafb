package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ScatterGather;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;
import java.util.Collection;

@Entity
@Table(name = "USER_ENTITY")
@CoLocated(with = RealmEntity.class, via = "realm")
@ScatterGather(queries = {"countAllUsers", "getUsernamesEverywhere"})
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
