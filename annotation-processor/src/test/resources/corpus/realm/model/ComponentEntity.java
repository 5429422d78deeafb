package realm.model;

import io.shardwise.annotations.CoLocated;
import io.shardwise.annotations.ShardKey;
import jakarta.persistence.*;
import java.util.Set;

@Entity
@Table(name = "COMPONENT")
@CoLocated(with = RealmEntity.class, via = "realm")
@NamedQueries({
    @NamedQuery(name = "getComponents", query = "select c from ComponentEntity c where c.realm = :realm"), // pins
    @NamedQuery(name = "getComponentsByParentAndType", query = "select c from ComponentEntity c where c.realm = :realm and c.providerType = :providerType and c.parentId = :parentId"), // pins
    @NamedQuery(name = "getComponentByParent", query = "select c from ComponentEntity c where c.realm = :realm and c.parentId = :parentId"), // pins
    @NamedQuery(name = "getComponentIdsByParent", query = "select c.id from ComponentEntity c where c.realm = :realm and c.parentId = :parentId"), // pins
    @NamedQuery(name = "deleteComponentByRealm", query = "delete from ComponentEntity c where c.realm = :realm"), // pins
    @NamedQuery(name = "deleteComponentByParent", query = "delete from ComponentEntity c where c.parentId = :parentId"), // lacks
    @NamedQuery(name = "getComponentsWithConfig", query = "select c from ComponentEntity c where c.realm = :realm and exists (select cc from c.componentConfigs cc where cc.name = :name and cc.value = :value)"), // pins
    @NamedQuery(name = "getComponentsWithConfigAnyRealm", query = "select c from ComponentEntity c where exists (select cc from c.componentConfigs cc where cc.name = :name)"), // lacks
    @NamedQuery(name = "getComponentsByConfigRealm", query = "select c from ComponentEntity c where c.providerType = :type and exists (select cc from c.componentConfigs cc where cc.realmId = :realmId)"), // pins
})
public class ComponentEntity {
  @Id @Column(name = "ID") protected String id;
  @ShardKey @Column(name = "REALM_ID") protected String realmId;
  @ManyToOne(fetch = FetchType.LAZY) @JoinColumn(name = "REALM_ID", insertable = false, updatable = false) protected RealmEntity realm;
  @Column(name = "NAME") protected String name;
  @Column(name = "PROVIDER_TYPE") protected String providerType;
  @Column(name = "PARENT_ID") protected String parentId;
  @OneToMany(mappedBy = "component") protected Set<ComponentConfigEntity> componentConfigs;
}
