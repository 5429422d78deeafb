package io.shardwise.hibernate.internal.query;

import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.internal.ScatterMarks;
import io.shardwise.hibernate.internal.ShardingModel;
import java.util.HashSet;
import java.util.Set;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.query.NamedHqlQueryDefinition;
import org.hibernate.mapping.PersistentClass;

/** Arms the runtime shard-key guard of a sharded session factory; called by the integrator. */
public final class QueryGuards {
  private QueryGuards() {}

  /**
   * Builds the guard from the checked sharding model and arms the session factory's translator.
   *
   * @throws ShardingConfigurationException when the factory's HQL translator is not
   *     {@link GuardedHqlTranslator}, naming the property to set
   */
  public static void install(GuardedHqlTranslator translator, Metadata metadata, ShardingModel model,
      ShardKeyValues keyValues, org.hibernate.dialect.Dialect dialect, String unitName,
      io.shardwise.hibernate.metrics.ShardwiseMetrics metrics,
      org.hibernate.engine.query.spi.NativeQueryInterpreter nativeInterpreter,
      org.hibernate.engine.jdbc.spi.JdbcServices jdbcServices) {
    if (translator == null) {
      throw new ShardingConfigurationException("Persistence unit '" + unitName + "' uses Shardwise but its"
          + " HQL translator is not Shardwise's guard, so queries without a shard key would run on one shard"
          + " unnoticed: set " + GuardedHqlTranslator.SETTING + " = " + GuardedHqlTranslator.class.getName()
          + " (Shardwise sets it unless the property is already set to another class)");
    }
    if (dialect.getSqmTranslatorFactory() != null) {
      throw new ShardingConfigurationException("Persistence unit '" + unitName + "' uses Shardwise with dialect "
          + dialect.getClass().getName() + ", which brings its own SQM translator; Shardwise checks every shard key"
          + " value a query binds inside Hibernate's standard translator and cannot do so inside another one. Use"
          + " org.hibernate.dialect.PostgreSQLDialect (or a subclass that keeps the standard translator).");
    }
    QueryGuard guard = new QueryGuard(new MetadataQueryModel(metadata, model), model, keyValues, unitName,
        admittedNamedQueries(metadata), metrics);
    translator.arm(guard);
    if (!(nativeInterpreter instanceof GuardedNativeQueryInterpreter guarded)) {
      throw new ShardingConfigurationException("Persistence unit '" + unitName + "' uses Shardwise but its native"
          + " query interpreter is " + (nativeInterpreter == null ? "missing" : nativeInterpreter.getClass().getName())
          + ", not Shardwise's guard, so native SQL without a shard key would run on one shard unnoticed: let"
          + " io.shardwise.hibernate.spi.QueryGuardContributor (found through META-INF/services) contribute it");
    }
    guarded.arm(guard);
    if (!(jdbcServices instanceof GuardedJdbcServices guardedJdbc)) {
      throw new ShardingConfigurationException("Persistence unit '" + unitName + "' uses Shardwise but its JDBC"
          + " services are " + (jdbcServices == null ? "missing" : jdbcServices.getClass().getName()) + ", not"
          + " Shardwise's, so a native UPDATE, DELETE or INSERT whose key belongs to another shard would run on"
          + " the session's shard unnoticed: let io.shardwise.hibernate.spi.QueryGuardContributor (found through"
          + " META-INF/services) contribute them, and contribute no other JdbcServices");
    }
    guardedJdbc.arm(guard);
  }

  /** The armed guard of a session factory, or null when it has none (not sharded, or not started). */
  public static QueryGuard of(org.hibernate.SessionFactory factory) {
    org.hibernate.query.hql.HqlTranslator translator = factory.unwrap(
        org.hibernate.engine.spi.SessionFactoryImplementor.class).getSessionFactoryOptions().getCustomHqlTranslator();
    return translator instanceof GuardedHqlTranslator guarded ? guarded.guard() : null;
  }

  /** The HQL of the named queries that {@link ScatterMarks} allows to scatter, and the SQL of such named native queries. */
  private static Set<String> admittedNamedQueries(Metadata metadata) {
    Set<String> admitted = new HashSet<>();
    for (PersistentClass pc : metadata.getEntityBindings()) {
      Class<?> type = pc.getMappedClass();
      if (type == null) {
        continue;
      }
      for (String name : ScatterMarks.namedQueriesOf(type)) {
        NamedHqlQueryDefinition<?> definition = metadata.getNamedHqlQueryMapping(name);
        if (definition != null && ScatterMarks.allowsScatter(type, name)) {
          admitted.add(definition.getHqlString());
        }
      }
    }
    for (PersistentClass pc : metadata.getEntityBindings()) {
      Class<?> type = pc.getMappedClass();
      io.shardwise.annotations.ScatterGather mark =
          type == null ? null : type.getAnnotation(io.shardwise.annotations.ScatterGather.class);
      if (mark == null) {
        continue;
      }
      for (jakarta.persistence.NamedNativeQuery q : type.getAnnotationsByType(jakarta.persistence.NamedNativeQuery.class)) {
        if (mark.queries().length == 0 || java.util.List.of(mark.queries()).contains(q.name())) {
          admitted.add(q.query());
        }
      }
    }
    return admitted;
  }
}
