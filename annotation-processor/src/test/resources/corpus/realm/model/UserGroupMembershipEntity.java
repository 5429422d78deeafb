package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;

@Entity
@Table(name = "USER_GROUP_MEMBERSHIP")
@CoLocated(with = RealmEntity.class, via = "user.realm")
@NamedQueries({
    @NamedQuery(name = "userGroupMembership", query = "select m from UserGroupMembershipEntity m where m.user = :user"), // lacks
    @NamedQuery(name = "userMemberOfInRealm", query = "select m from UserGroupMembershipEntity m where m.user = :user and m.realmId = :realmId"), // pins
    @NamedQuery(name = "groupMembership", query = "select g.user from UserGroupMembershipEntity g where g.groupId = :groupId order by g.user.username"), // lacks
    @NamedQuery(name = "groupMembershipInRealm", query = "select g.user from UserGroupMembershipEntity g where g.realmId = :realmId and g.groupId = :groupId order by g.user.username"), // pins
    @NamedQuery(name = "userGroupIds", query = "select m.groupId from UserGroupMembershipEntity m where m.user.id = :userId and m.realmId = :realmId"), // pins
    @NamedQuery(name = "deleteUserGroupMembershipByRealm", query = "delete from UserGroupMembershipEntity m where m.user IN (select u from UserEntity u where u.realmId = :realmId)"), // pins
    @NamedQuery(name = "deleteUserGroupMembershipsByGroup", query = "delete from UserGroupMembershipEntity m where m.groupId = :groupId"), // lacks
    @NamedQuery(name = "deleteUserGroupMembershipsByGroupInRealm", query = "delete from UserGroupMembershipEntity m where m.realmId = :realmId and m.groupId = :groupId"), // pins
    @NamedQuery(name = "membershipsOfRealmByEntity", query = "select m from UserGroupMembershipEntity m where m.user.realm = :realm"), // pins
})
public class UserGroupMembershipEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "USER_ID") protected UserEntity user;
  @Column(name = "GROUP_ID") protected String groupId;
}
