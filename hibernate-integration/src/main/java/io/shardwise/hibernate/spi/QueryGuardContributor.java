package io.shardwise.hibernate.spi;

import io.shardwise.hibernate.internal.query.GuardedHqlTranslator;
import io.shardwise.hibernate.internal.query.GuardedJdbcServices;
import io.shardwise.hibernate.internal.query.GuardedNativeQueryInterpreter;
import io.shardwise.hibernate.internal.query.GuardedSqmTranslatorFactory;
import java.util.Map;
import org.hibernate.boot.registry.StandardServiceInitiator;
import org.hibernate.boot.registry.StandardServiceRegistryBuilder;
import org.hibernate.engine.jdbc.spi.JdbcServices;
import org.hibernate.service.spi.ServiceContributor;
import org.hibernate.service.spi.ServiceRegistryImplementor;

/**
 * Sets {@value GuardedHqlTranslator#SETTING} to {@link GuardedHqlTranslator} for every
 * persistence unit whose connections come from {@link ShardwiseConnectionProvider}, so that the
 * runtime shard-key guard is on however the unit is bootstrapped (the fluent builder,
 * persistence.xml, or Hibernate's {@code Configuration}). Leaves other units, and a translator the
 * application chose itself, alone; the integrator then refuses to start a sharded unit without
 * the guard, naming the property. Puts {@link GuardedNativeQueryInterpreter} in the registry of such
 * units, so that native SQL is held to the same rule, and {@link GuardedJdbcServices} in place of
 * Hibernate's JDBC services, so that the key values of native statements that write are checked
 * as a native select's are. Discovered through {@code META-INF/services}.
 */
public final class QueryGuardContributor implements ServiceContributor {

  static final String CONNECTION_PROVIDER = "hibernate.multi_tenant_connection_provider";

  /** Registered after Hibernate's own initiator of the role, so it takes its place. */
  private static final StandardServiceInitiator<JdbcServices> GUARDED_JDBC_SERVICES =
      new StandardServiceInitiator<>() {
        @Override
        public Class<JdbcServices> getServiceInitiated() {
          return JdbcServices.class;
        }

        @Override
        public JdbcServices initiateService(Map<String, Object> settings, ServiceRegistryImplementor registry) {
          return new GuardedJdbcServices();
        }
      };

  @Override
  public void contribute(StandardServiceRegistryBuilder builder) {
    Map<String, Object> settings = builder.getSettings();
    if (isShardwise(settings.get(CONNECTION_PROVIDER)) && !settings.containsKey(GuardedHqlTranslator.SETTING)) {
      builder.applySetting(GuardedHqlTranslator.SETTING, GuardedHqlTranslator.class.getName());
    }
    if (isShardwise(settings.get(CONNECTION_PROVIDER))
        && !settings.containsKey(GuardedSqmTranslatorFactory.SETTING)) {
      builder.applySetting(GuardedSqmTranslatorFactory.SETTING, GuardedSqmTranslatorFactory.class.getName());
    }
    if (isShardwise(settings.get(CONNECTION_PROVIDER))) {
      builder.addService(org.hibernate.engine.query.spi.NativeQueryInterpreter.class,
          new GuardedNativeQueryInterpreter(org.hibernate.internal.util.config.ConfigurationHelper.getBoolean(
              org.hibernate.cfg.QuerySettings.NATIVE_IGNORE_JDBC_PARAMETERS, settings, false)));
      builder.addInitiator(GUARDED_JDBC_SERVICES);
    }
  }

  private static boolean isShardwise(Object provider) {
    return provider instanceof ShardwiseConnectionProvider
        || provider == ShardwiseConnectionProvider.class
        || provider instanceof String name && name.trim().equals(ShardwiseConnectionProvider.class.getName());
  }
}
