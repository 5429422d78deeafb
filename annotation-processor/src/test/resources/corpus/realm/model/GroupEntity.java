package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;

@Entity
@Table(name = "KEYCLOAK_GROUP")
@CoLocated(with = RealmEntity.class, via = "realm")
@NamedQueries({
    @NamedQuery(name = "getGroupIdsByParent", query = "select u.id from GroupEntity u where u.parentId = :parent and u.realm.id = :realm order by u.name"), // pins
    @NamedQuery(name = "getGroupIdsByNameContaining", query = "select u.id from GroupEntity u where u.realm.id = :realm and lower(u.name) like lower(concat('%', :search, '%')) order by u.name"), // pins
    @NamedQuery(name = "getTopLevelGroupCount", query = "select count(g) from GroupEntity g where g.realm.id = :realm and g.parentId = :parent"), // pins
    @NamedQuery(name = "getGroupCount", query = "select count(g) from GroupEntity g where g.realm = :realm"), // pins
    @NamedQuery(name = "getGroupByName", query = "select g from GroupEntity g where g.name = :name"), // lacks
    @NamedQuery(name = "deleteGroupsByRealm", query = "delete from GroupEntity g where g.realm = :realm"), // pins
    @NamedQuery(name = "getGroupsOfUser", query = "select g from GroupEntity g where g.realmId = :realmId and g.id in (select m.groupId from UserGroupMembershipEntity m where m.user = :user and m.realmId = :realmId)"), // pins
    @NamedQuery(name = "getSubGroupsOf", query = "select g from GroupEntity g where g.parentId = :parentId"), // lacks
})
public class GroupEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "REALM_ID", insertable = false, updatable = false) protected RealmEntity realm;
  @Column(name = "NAME") protected String name;
  @Column(name = "PARENT_GROUP") protected String parentId;
}
