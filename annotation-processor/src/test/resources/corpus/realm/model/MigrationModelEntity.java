package realm.model;

import io.shardwise.annotations.ReferenceTable;
import jakarta.persistence.*;

@Entity
@Table(name = "MIGRATION_MODEL")
@ReferenceTable
@NamedQueries({
    @NamedQuery(name = "getLatest", query = "select m from MigrationModelEntity m order by m.updatedTime desc"), // pins
    @NamedQuery(name = "getRealmsWithMigration", query = "select r.id from RealmEntity r, MigrationModelEntity m where m.version = :version"), // lacks
})
public class MigrationModelEntity {
  @Id @Column(name = "ID") protected String id;
  @Column(name = "VERSION") protected String version;
  @Column(name = "UPDATE_TIME") protected long updatedTime;
}
