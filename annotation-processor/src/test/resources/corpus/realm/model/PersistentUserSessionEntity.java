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
public class PersistentUserSessionEntity {
  @Id @Column(name = "USER_SESSION_ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @Column(name = "USER_ID") protected String userId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "USER_ID", insertable = false, updatable = false) protected UserEntity user;
  @Column(name = "BROKER_SESSION_ID") protected String brokerSessionId;
  @Column(name = "OFFLINE_FLAG") protected boolean offline;
  @Column(name = "LAST_SESSION_REFRESH") protected int lastSessionRefresh;
}
