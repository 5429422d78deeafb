package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ScatterGather;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;

@Entity
@Table(name = "USER_ATTRIBUTE")
@CoLocated(with = RealmEntity.class, via = "user.realm")
@ScatterGather(queries = "getAttributeNamesEverywhere")
@NamedQueries({
    @NamedQuery(name = "getAttributesByNameAndValue", query = "select attr from UserAttributeEntity attr where attr.name = :name and attr.value = :value"), // lacks
    @NamedQuery(name = "deleteUserAttributesByRealm", query = "delete from UserAttributeEntity attr where attr.user IN (select u from UserEntity u where u.realmId = :realmId)"), // pins
    @NamedQuery(name = "deleteUserAttributesByRealmAndLink", query = "delete from UserAttributeEntity attr where attr.user IN (select u from UserEntity u where u.realmId = :realmId and u.federationLink = :link)"), // pins
    @NamedQuery(name = "deleteUserAttributesByNameAndUser", query = "delete from UserAttributeEntity attr where attr.user.id = :userId and attr.name = :name"), // lacks
    @NamedQuery(name = "deleteUserAttributesByNameAndUserOtherThan", query = "delete from UserAttributeEntity attr where attr.user.id = :userId and attr.name = :name and attr.id <> :attrId"), // lacks
    @NamedQuery(name = "getAttributesOfUserInRealm", query = "select attr from UserAttributeEntity attr where attr.user = :user and attr.realmId = :realmId"), // pins
    @NamedQuery(name = "getAttributesOfUser", query = "select attr from UserAttributeEntity attr where attr.user = :user"), // lacks
    @NamedQuery(name = "getAttributesByRealm", query = "select attr from UserAttributeEntity attr where attr.user.realm = :realm"), // pins
    @NamedQuery(name = "getAttributesOfEnabledUsers", query = "select attr from UserAttributeEntity attr where exists (select 1 from UserEntity u where u = attr.user and u.realmId = :realmId and u.enabled = true)"), // pins
    @NamedQuery(name = "getAttributesOfUsersNamed", query = "select attr from UserAttributeEntity attr where attr.user in (select u from UserEntity u where u.username = :username)"), // lacks
    @NamedQuery(name = "getAttributeNamesEverywhere", query = "select distinct attr.name from UserAttributeEntity attr"), // scatter
})
public class UserAttributeEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "USER_ID") protected UserEntity user;
  @Column(name = "NAME") protected String name;
  @Column(name = "VALUE") protected String value;
}
