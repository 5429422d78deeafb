package realm.model;

import io.shardwise.annotations.ReferenceTable;
import jakarta.persistence.*;

@Entity
@Table(name = "SERVER_CONFIG")
@ReferenceTable
@NamedQueries({
    @NamedQuery(name = "getServerConfig", query = "select c from ServerConfigEntity c where c.configKey = :key"), // pins
    @NamedQuery(name = "getAllServerConfig", query = "select c from ServerConfigEntity c order by c.configKey"), // pins
})
@NamedNativeQueries({
    @NamedNativeQuery(name = "nativeServerConfig", query = "select SERVER_CONFIG_KEY, VALUE from SERVER_CONFIG where SERVER_CONFIG_KEY = :key"), // pins
    @NamedNativeQuery(name = "nativeAllServerConfig", query = "select * from SERVER_CONFIG"), // pins
})
public class ServerConfigEntity {
  @Id @Column(name = "SERVER_CONFIG_KEY") protected String configKey;
  @Column(name = "VALUE") protected String value;
}
