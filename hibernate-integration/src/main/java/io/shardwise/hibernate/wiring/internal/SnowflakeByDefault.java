package io.shardwise.hibernate.wiring.internal;

import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.id.SnowflakeGenerator;
import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.ShardingModel;
import java.lang.reflect.Member;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.boot.Metadata;
import org.hibernate.mapping.GeneratorCreator;
import org.hibernate.mapping.PersistentClass;
import org.hibernate.mapping.RootClass;
import org.hibernate.mapping.SimpleValue;

/**
 * {@code shardwise.ids.default = snowflake}: every sharded (non-reference) entity whose id is a
 * {@code Long}/{@code long} with no generator of its own gets {@code @SnowflakeId}'s generator with
 * the default layout — also when the {@code @Id} is declared once on a {@code @MappedSuperclass}.
 * Runs when the session factory starts, after the mapping is read and before Hibernate creates the
 * generators. An {@code Integer}/{@code int} id without a generator is refused (a Snowflake id
 * needs 64 bits), every such entity in one message.
 */
public final class SnowflakeByDefault {

  private SnowflakeByDefault() {}

  public static void apply(Metadata metadata, ShardingModel model, String unitName) {
    List<String> tooSmall = new ArrayList<>();
    for (PersistentClass entity : metadata.getEntityBindings()) {
      ShardedEntity sharded = model.byEntityName(entity.getEntityName());
      if (!(entity instanceof RootClass root) || sharded == null || sharded.reference()
          || !(root.getIdentifier() instanceof SimpleValue id) || root.getIdentifierProperty() == null
          || !hasNoGenerator(id)) {
        continue;
      }
      Class<?> type = root.getIdentifierProperty().getType().getReturnedClass();
      String name = sharded.simpleName() + "." + root.getIdentifierProperty().getName();
      if (type == Integer.class || type == int.class || type == Short.class || type == short.class) {
        tooSmall.add(name + " (" + type.getSimpleName() + ")");
        continue;
      }
      if (type != Long.class && type != long.class) {
        continue;
      }
      Member member = root.getIdentifierProperty().getGetter(root.getMappedClass()).getMember();
      String simpleName = sharded.simpleName();
      id.setCustomIdGeneratorCreator(context -> SnowflakeGenerator.byDefault(simpleName, member, context));
    }
    if (!tooSmall.isEmpty()) {
      throw new ShardingConfigurationException("Persistence unit '" + unitName + "' sets "
          + ShardwiseSettings.IDS_DEFAULT + " = snowflake, but the ids " + tooSmall + " are too small for Snowflake"
          + " ids (64 bits). Declare them Long (and the columns bigint), or give those entities a generator of"
          + " their own. To keep an Integer id, give it @GeneratedValue (identity or sequence) and set "
          + ShardwiseSettings.IDS_GENERATED + " = cluster: its values then come from a counter in the control"
          + " database, unique across shards");
    }
  }

  /** No {@code @GeneratedValue} or generator annotation: Hibernate's "assigned" creator, or none. */
  private static boolean hasNoGenerator(SimpleValue id) {
    GeneratorCreator creator = id.getCustomIdGeneratorCreator();
    return creator == null || creator.isAssigned();
  }
}
