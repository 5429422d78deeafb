package io.shardwise.hibernate.wiring.internal;

import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.ShardwiseDdl;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.jdbc.OwnObjects;
import io.shardwise.hibernate.routing.ControlDatabase;
import jakarta.persistence.GeneratedValue;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Member;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.hibernate.boot.Metadata;
import org.hibernate.mapping.PersistentClass;
import org.hibernate.mapping.RootClass;
import org.hibernate.mapping.SimpleValue;

/**
 * {@code shardwise.ids.generated}: what becomes of the {@code @GeneratedValue} ids of sharded
 * entities (identity, sequence, table, auto on a {@code short}, {@code int} or {@code long} id).
 * With {@code cluster} each keeps its type and mapping and gets a {@link ClusterIdGenerator}; with
 * the default, {@code per_shard}, a root whose shard key is such an id is refused at start-up, naming
 * the setting: each shard's database would number it, so its id could neither route to the
 * session's shard nor be unique across shards. Runs after the mapping is read and before Hibernate
 * creates the generators.
 */
public final class ClusterIds {
  private static final Set<Class<?>> INTEGRAL = Set.of(Short.class, short.class, Integer.class, int.class,
      Long.class, long.class);

  private ClusterIds() {}

  public static void apply(Metadata metadata, ShardwiseComponents components) {
    String unit = components.config().unitName();
    boolean cluster = components.config().clusterIds();
    List<String> needSetting = new ArrayList<>();
    boolean replaced = false;
    for (PersistentClass entity : metadata.getEntityBindings()) {
      ShardedEntity sharded = components.model().byEntityName(entity.getEntityName());
      if (!(entity instanceof RootClass root) || sharded == null || sharded.reference()
          || !(root.getIdentifier() instanceof SimpleValue id) || root.getIdentifierProperty() == null
          || id.getColumns().size() != 1) {
        continue;
      }
      Class<?> type = root.getIdentifierProperty().getType().getReturnedClass();
      Member member = root.getIdentifierProperty().getGetter(root.getMappedClass()).getMember();
      if (!INTEGRAL.contains(type) || !(member instanceof AnnotatedElement annotated)
          || annotated.getAnnotation(GeneratedValue.class) == null) {
        continue;
      }
      if (!cluster) {
        if (sharded.keyIsIdentifier()) {
          needSetting.add(sharded.simpleName() + "." + root.getIdentifierProperty().getName() + " ("
              + type.getSimpleName() + ")");
        }
        continue;
      }
      String table = root.getTable().getQualifiedTableName().render();
      String column = id.getColumns().get(0).getName();
      String simpleName = sharded.simpleName();
      ControlDatabase control = components.controlDatabase();
      io.shardwise.hibernate.routing.internal.Router routedBy = sharded.keyIsIdentifier() ? components.router() : null;
      id.setCustomIdGeneratorCreator(context -> new ClusterIdGenerator(simpleName, table, column, type, control,
          components.pools()::primary, () -> components.router().map().shards().keySet(), routedBy));
      replaced = true;
    }
    if (!needSetting.isEmpty()) {
      throw new ShardingConfigurationException("Persistence unit '" + unit + "' shards the roots " + needSetting
          + " by their @GeneratedValue id, which each shard's database would number on its own: the id could"
          + " neither route to the shard the root is placed on nor be unique across shards. Set "
          + ShardwiseSettings.IDS_GENERATED + " = cluster (with " + ShardwiseSettings.CONTROL_URL + "): the ids keep"
          + " their type and mapping, and Shardwise hands out their values from a counter per table in the control"
          + " database, each routing to its root's shard. Or use @SnowflakeId on a Long id.");
    }
    if (replaced) {
      try (Connection c = components.controlDatabase().openConnection("shardwise-ids")) {
        OwnObjects.ensure(c, components.config().ddlCreate(), "the control database", ShardwiseDdl.Feature.ID_COUNTERS);
      } catch (SQLException e) {
        throw new ShardingConfigurationException("Persistence unit '" + unit + "': could not check the id counters"
            + " of " + ShardwiseSettings.IDS_GENERATED + " = cluster in the control database: " + e.getMessage(), e);
      }
    }
  }
}
