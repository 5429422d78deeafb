package io.shardwise.hibernate.spi;

import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.ShardingModel;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.internal.query.GuardedHqlTranslator;
import io.shardwise.hibernate.internal.query.QueryGuards;
import io.shardwise.hibernate.wiring.internal.ShardwiseComponents;
import io.shardwise.hibernate.wiring.internal.SnowflakeByDefault;
import java.util.HashMap;
import java.util.Map;
import org.hibernate.boot.Metadata;
import org.hibernate.boot.spi.BootstrapContext;
import org.hibernate.engine.jdbc.connections.spi.MultiTenantConnectionProvider;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.event.service.spi.EventListenerRegistry;
import org.hibernate.integrator.spi.Integrator;
import org.hibernate.service.spi.SessionFactoryServiceRegistry;
import org.hibernate.tool.schema.spi.SchemaManagementToolCoordinator;

/**
 * Hooks Shardwise into every session factory whose connection provider is
 * {@link ShardwiseConnectionProvider}: builds and checks the sharding model, registers the write
 * guards, arms the query guard (queries without a shard key), and runs schema management on every
 * shard. Inert for other session factories.
 */
public final class ShardwiseIntegrator implements Integrator {

  @Override
  public void integrate(Metadata metadata, BootstrapContext bootstrapContext, SessionFactoryImplementor sessionFactory) {
    SessionFactoryServiceRegistry registry = (SessionFactoryServiceRegistry) sessionFactory.getServiceRegistry();
    MultiTenantConnectionProvider<?> provider = registry.getService(MultiTenantConnectionProvider.class);
    Map<String, Object> settings = sessionFactory.getProperties();
    GuardedHqlTranslator translator = GuardedHqlTranslator.attach(sessionFactory);
    if (!(provider instanceof ShardwiseConnectionProvider shardwise)) {
      if (settings.containsKey(io.shardwise.hibernate.ShardwiseSettings.SHARDS)
          || settings.containsKey(io.shardwise.hibernate.ShardwiseSettings.CONTROL_URL)) {
        throw new ShardingConfigurationException("Shard settings (shardwise.shards / shardwise.control.url) are set, but Hibernate's connections do not"
            + " come from Shardwise: set hibernate.multi_tenant_connection_provider = "
            + ShardwiseConnectionProvider.class.getName() + " (Shardwise.configure() does this for you)");
      }
      return;
    }
    ShardwiseComponents components = shardwise.unwrap(ShardwiseComponents.class);
    if (sessionFactory.getSessionFactoryOptions().getCurrentTenantIdentifierResolver() == null) {
      throw new ShardingConfigurationException("Persistence unit '" + components.config().unitName() + "' uses Shardwise"
          + " but has no tenant identifier resolver: set hibernate.tenant_identifier_resolver = "
          + ShardContextResolver.class.getName()
          + " so that sessions opened inside a ShardContext are routed");
    }
    Object tenantResolver = sessionFactory.getSessionFactoryOptions().getCurrentTenantIdentifierResolver();
    if (tenantResolver instanceof ShardContextResolver resolver) {
      resolver.countSessionsIn(components.metrics());
    }
    components.installModel(ShardingModel.build(metadata, components.config().unitName()));
    if (components.config().snowflakeIdsByDefault()) {
      SnowflakeByDefault.apply(metadata, components.model(), components.config().unitName());
    }
    io.shardwise.hibernate.wiring.internal.ClusterIds.apply(metadata, components);
    requireTokenSecretWhenPinning(components);
    QueryGuards.install(translator, metadata, components.model(), components.keyValues(),
        sessionFactory.getJdbcServices().getDialect(), components.config().unitName(), components.metrics(),
        registry.getService(org.hibernate.engine.query.spi.NativeQueryInterpreter.class),
        sessionFactory.getJdbcServices());
    if (!(sessionFactory.getSessionFactoryOptions().getCustomSqmTranslatorFactory()
        instanceof io.shardwise.hibernate.internal.query.GuardedSqmTranslatorFactory)) {
      throw new ShardingConfigurationException("Persistence unit '" + components.config().unitName() + "' uses"
          + " Shardwise but its SQM translator factory is not Shardwise's guard, so criteria queries without a"
          + " shard key would run on one shard unnoticed: set "
          + io.shardwise.hibernate.internal.query.GuardedSqmTranslatorFactory.SETTING + " = "
          + io.shardwise.hibernate.internal.query.GuardedSqmTranslatorFactory.class.getName()
          + " (Shardwise sets it unless the property is already set to another class)");
    }

    components.registerListeners(registry.getService(EventListenerRegistry.class), sessionFactory);

    manageSchema(metadata, registry, settings, components);
  }

  /**
   * Tokens are what carries a scope's pins to another instance, and only {@code @ReadYourWrites}
   * entities pin: a unit that maps one needs the secret, and learns it now rather than at the first
   * token of a running application.
   */
  private static void requireTokenSecretWhenPinning(ShardwiseComponents components) {
    if (components.config().rywSecret() != null) {
      return;
    }
    java.util.List<String> pinning = components.model().entities().stream()
        .filter(e -> e.readYourWrites() != null).map(ShardedEntity::simpleName).sorted().toList();
    if (!pinning.isEmpty()) {
      throw new ShardingConfigurationException("Persistence unit '" + components.config().unitName() + "' maps"
          + " @ReadYourWrites entities " + pinning + " but has no " + io.shardwise.hibernate.ShardwiseSettings.RYW_SECRET
          + ": consistency tokens, which carry their pins to other instances, could not be signed. Set it to at"
          + " least 32 random characters (e.g. openssl rand -base64 32), the same on every instance");
    }
  }

  private static void manageSchema(Metadata metadata, SessionFactoryServiceRegistry registry,
      Map<String, Object> settings, ShardwiseComponents components) {
    ShardwiseConfig.SchemaAction action = components.config().schemaAction();
    if (action == ShardwiseConfig.SchemaAction.NONE) {
      return;
    }
    Map<String, Object> perShard = new HashMap<>(settings);
    perShard.remove("jakarta.persistence.schema-generation.database.action");
    perShard.put("hibernate.hbm2ddl.auto", switch (action) {
      case CREATE -> "create";
      case UPDATE -> "update";
      case VALIDATE -> "validate";
      case NONE -> "none";
    });
    components.onEveryShard(shard -> {
      if (action == ShardwiseConfig.SchemaAction.CREATE) {
        // Hibernate's meaning, kept: tests and demos rely on it. Said loudly, once per shard.
        System.getLogger("io.shardwise.schema").log(System.Logger.Level.WARNING, "shardwise.schema.action = create"
            + " drops and re-creates every mapped table, with its rows, on shard '" + shard + "' of persistence unit '"
            + components.config().unitName() + "' now; use update, validate or none for data you keep");
      }
      try {
        SchemaManagementToolCoordinator.process(metadata, registry, perShard, null);
      } catch (RuntimeException e) {
        throw new ShardingConfigurationException("Schema " + action.name().toLowerCase() + " failed on shard '" + shard
            + "' of persistence unit '" + components.config().unitName() + "': " + e.getMessage(), e);
      }
    });
  }
}
