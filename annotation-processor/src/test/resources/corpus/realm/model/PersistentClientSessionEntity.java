package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;

@Entity
@Table(name = "OFFLINE_CLIENT_SESSION")
@CoLocated(with = RealmEntity.class, via = "userSession.user.realm")
@NamedQueries({
    @NamedQuery(name = "findClientSessionsByUserSession", query = "select sess from PersistentClientSessionEntity sess where sess.userSession.id = :userSessionId and sess.offline = :offline"), // lacks
    @NamedQuery(name = "findClientSessionsByUserSessionInRealm", query = "select sess from PersistentClientSessionEntity sess where sess.realmId = :realmId and sess.userSession.id = :userSessionId and sess.offline = :offline"), // pins
    @NamedQuery(name = "deleteClientSessionsByRealm", query = "delete from PersistentClientSessionEntity sess where sess.userSession IN (select u from PersistentUserSessionEntity u where u.realmId = :realmId)"), // pins
    @NamedQuery(name = "deleteClientSessionsByClient", query = "delete from PersistentClientSessionEntity sess where sess.clientId = :clientId"), // lacks
    @NamedQuery(name = "deleteClientSessionsByClientInRealm", query = "delete from PersistentClientSessionEntity sess where sess.clientId = :clientId and sess.userSession in (select u from PersistentUserSessionEntity u where u.realmId = :realmId)"), // pins
    @NamedQuery(name = "deleteClientSessionsByUser", query = "delete from PersistentClientSessionEntity sess where sess.userSession IN (select u from PersistentUserSessionEntity u where u.userId = :userId)"), // lacks
    @NamedQuery(name = "findClientSessionsClientIds", query = "select sess.clientId, count(sess) from PersistentClientSessionEntity sess where sess.realmId = :realmId and sess.offline = :offline group by sess.clientId"), // pins
    @NamedQuery(name = "findClientSessionsOfRealmUser", query = "select sess from PersistentClientSessionEntity sess where exists (select 1 from PersistentUserSessionEntity u where u = sess.userSession and u.realmId = :realmId and u.userId = :userId)"), // pins
    @NamedQuery(name = "findClientSessionsOfUserAnyRealm", query = "select sess from PersistentClientSessionEntity sess where exists (select 1 from PersistentUserSessionEntity u where u = sess.userSession and u.userId = :userId)"), // lacks
})
public class PersistentClientSessionEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "USER_SESSION_ID") protected PersistentUserSessionEntity userSession;
  @Column(name = "CLIENT_ID") protected String clientId;
  @Column(name = "OFFLINE_FLAG") protected boolean offline;
}
