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
public class ServerConfigEntity {
  @Id @Column(name = "SERVER_CONFIG_KEY") protected String configKey;
  @Column(name = "VALUE") protected String value;
}
