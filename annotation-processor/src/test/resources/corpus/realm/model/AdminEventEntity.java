package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ScatterGather;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;

@Entity
@Table(name = "ADMIN_EVENT_ENTITY")
@CoLocated(with = RealmEntity.class)
@ScatterGather(queries = "getAllAdminEventsSince")
@NamedQueries({
    @NamedQuery(name = "getAdminEventsOfRealmBefore", query = "select e from AdminEventEntity e where e.realmId = :realmId and e.time < :time order by e.time desc"), // pins
    @NamedQuery(name = "deleteAdminEventsByRealm", query = "delete from AdminEventEntity e where e.realmId = :realmId"), // pins
    @NamedQuery(name = "deleteAdminEventsByRealmBefore", query = "delete from AdminEventEntity e where e.realmId = :realmId and e.time < :time"), // pins
    @NamedQuery(name = "deleteAdminEventsBefore", query = "delete from AdminEventEntity e where e.time < :time"), // lacks
    @NamedQuery(name = "getAllAdminEventsSince", query = "select e from AdminEventEntity e where e.time > :time order by e.time"), // scatter
    @NamedQuery(name = "getAdminEventsOfRealms", query = "select e from AdminEventEntity e where e.realmId in :realmIds and e.operationType = :op"), // pins
})
public class AdminEventEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @Column(name = "ADMIN_EVENT_TIME") protected long time;
  @Column(name = "OPERATION_TYPE") protected String operationType;
}
