package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;

@Entity
@Table(name = "COMPONENT_CONFIG")
@CoLocated(with = RealmEntity.class, via = "component.realm")
@NamedQueries({
    @NamedQuery(name = "getComponentConfig", query = "select config from ComponentConfigEntity config where config.component = :component"), // lacks
    @NamedQuery(name = "getComponentConfigInRealm", query = "select config from ComponentConfigEntity config where config.component = :component and config.realmId = :realmId"), // pins
    @NamedQuery(name = "deleteComponentConfigByComponent", query = "delete from ComponentConfigEntity c where c.component = :component"), // lacks
    @NamedQuery(name = "deleteComponentConfigByRealm", query = "delete from ComponentConfigEntity c where c.component IN (select comp from ComponentEntity comp where comp.realm = :realm)"), // pins
    @NamedQuery(name = "deleteComponentConfigByParent", query = "delete from ComponentConfigEntity c where c.component IN (select comp from ComponentEntity comp where comp.parentId = :parentId)"), // lacks
    @NamedQuery(name = "getConfigOfComponentsByType", query = "select cc from ComponentConfigEntity cc join ComponentEntity comp on comp.id = cc.component.id where comp.realm.id = :realmId and comp.providerType = :type"), // pins
    @NamedQuery(name = "getConfigJoinedByName", query = "select cc from ComponentConfigEntity cc join ComponentEntity comp on comp.name = cc.name where comp.realm.id = :realmId"), // lacks
    @NamedQuery(name = "getConfigOfComponentRealmLeftJoin", query = "select cc from ComponentConfigEntity cc left join cc.component comp where cc.realmId = :realmId and comp.providerType = :type"), // pins
})
public class ComponentConfigEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "COMPONENT_ID") protected ComponentEntity component;
  @Column(name = "NAME") protected String name;
  @Column(name = "VALUE") protected String value;
}
