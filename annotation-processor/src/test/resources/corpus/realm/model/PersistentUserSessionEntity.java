package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ScatterGather;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;

@Entity
@Table(name = "OFFLINE_USER_SESSION")
@CoLocated(with = RealmEntity.class, via = "user.realm")
@ScatterGather(queries = "findUserSessionsCount")
@NamedQueries({
    @NamedQuery(name = "findUserSessionsByUserId", query = "select sess from PersistentUserSessionEntity sess where sess.realmId = :realmId and sess.offline = :offline and sess.userId = :userId order by sess.id"), // pins
    @NamedQuery(name = "findUserSessionsByBrokerSessionId", query = "select sess from PersistentUserSessionEntity sess where sess.realmId = :realmId and sess.brokerSessionId = :brokerSessionId and sess.offline = :offline order by sess.id"), // pins
    @NamedQuery(name = "findUserSessionsCount", query = "select count(sess) from PersistentUserSessionEntity sess where sess.offline = :offline"), // scatter
    @NamedQuery(name = "findUserSessionsCountInRealm", query = "select count(sess) from PersistentUserSessionEntity sess where sess.offline = :offline and sess.realmId = :realmId"), // pins
    @NamedQuery(name = "findUserSessionByBrokerAnyRealm", query = "select sess from PersistentUserSessionEntity sess where sess.brokerSessionId = :brokerSessionId"), // lacks
    @NamedQuery(name = "deleteUserSessionsByRealm", query = "delete from PersistentUserSessionEntity sess where sess.realmId = :realmId"), // pins
    @NamedQuery(name = "deleteUserSessionsByUser", query = "delete from PersistentUserSessionEntity sess where sess.user = :user"), // lacks
    @NamedQuery(name = "deleteUserSessionsByUserInRealm", query = "delete from PersistentUserSessionEntity sess where sess.user = :user and sess.realmId = :realmId"), // pins
    @NamedQuery(name = "deleteExpiredUserSessions", query = "delete from PersistentUserSessionEntity sess where sess.realmId = :realmId and sess.offline = :offline and sess.lastSessionRefresh < :lastSessionRefresh"), // pins
    @NamedQuery(name = "deleteExpiredUserSessionsEverywhere", query = "delete from PersistentUserSessionEntity sess where sess.lastSessionRefresh < :lastSessionRefresh"), // lacks
    @NamedQuery(name = "updateUserSessionLastSessionRefresh", query = "update PersistentUserSessionEntity sess set sess.lastSessionRefresh = :lastSessionRefresh where sess.realmId = :realmId and sess.offline = :offline and sess.id in :ids"), // pins
    @NamedQuery(name = "findUserSessionsByUserNoRealm", query = "select sess from PersistentUserSessionEntity sess where sess.user.id = :userId"), // lacks
    @NamedQuery(name = "findSessionsOfDisabledUsers", query = "select sess from PersistentUserSessionEntity sess where sess.user in (select u from UserEntity u where u.realm = :realm and u.enabled = false)"), // pins
    @NamedQuery(name = "findSessionsOfUsersCorrelated", query = "select sess from PersistentUserSessionEntity sess where sess.user in (select u from UserEntity u where u.realmId = sess.realmId and u.enabled = false)"), // lacks
})
@NamedNativeQueries({
    @NamedNativeQuery(name = "nativeSessionsOfUser", query = "select * from OFFLINE_USER_SESSION s where s.REALM_ID = :realmId and s.USER_ID = :userId and s.OFFLINE_FLAG = :offline"), // pins
    @NamedNativeQuery(name = "nativeExpireSessions", query = "delete from OFFLINE_USER_SESSION where REALM_ID = :realmId and LAST_SESSION_REFRESH < :time"), // pins
    @NamedNativeQuery(name = "nativeSessionCountsPerClient", query = "select c.CLIENT_ID, count(*) from OFFLINE_USER_SESSION s join CLIENT c on c.REALM_ID = s.REALM_ID where s.REALM_ID = :realmId group by c.CLIENT_ID"), // pins
    @NamedNativeQuery(name = "nativeSessionsWithUserSubquery", query = "select s.* from OFFLINE_USER_SESSION s where s.REALM_ID = :realmId and exists (select 1 from USER_ENTITY u where u.ID = s.USER_ID and u.REALM_ID = s.REALM_ID and u.ENABLED)"), // pins
    @NamedNativeQuery(name = "nativeExpireSessionsEverywhere", query = "delete from OFFLINE_USER_SESSION where LAST_SESSION_REFRESH < :time"), // lacks
    @NamedNativeQuery(name = "nativeSessionsWithUnpinnedSubquery", query = "select s.* from OFFLINE_USER_SESSION s where s.REALM_ID = :realmId and s.USER_ID in (select u.ID from USER_ENTITY u where u.EMAIL = :email)"), // lacks
})
public class PersistentUserSessionEntity {
  @Id @Column(name = "USER_SESSION_ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @Column(name = "USER_ID") protected String userId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "USER_ID", insertable = false, updatable = false) protected UserEntity user;
  @Column(name = "BROKER_SESSION_ID") protected String brokerSessionId;
  @Column(name = "OFFLINE_FLAG") protected boolean offline;
  @Column(name = "LAST_SESSION_REFRESH") protected int lastSessionRefresh;
}
