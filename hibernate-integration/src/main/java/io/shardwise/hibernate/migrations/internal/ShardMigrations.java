package io.shardwise.hibernate.migrations.internal;

import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.migrations.Migrations;
import io.shardwise.hibernate.routing.ControlDatabase;
import io.shardwise.hibernate.routing.ShardMap;
import java.util.function.Supplier;

/** Builds {@link Migrations}, checking first that Flyway is on the class path (it is optional). */
public final class ShardMigrations {
  private ShardMigrations() {}

  /** Without a session factory: the shards of the configured map, or of the control database's current map. */
  public static Migrations standalone(ShardwiseConfig config) {
    Supplier<ShardMap> maps = config.controlUrl() == null ? config::staticMap
        : () -> config.controlDatabase().load();
    return of(config, maps, () -> { });
  }

  /**
   * @param afterMigration run after every migration or repair, failed or not (the session factory's
   *     gate reads the versions again)
   */
  public static Migrations of(ShardwiseConfig config, Supplier<ShardMap> maps, Runnable afterMigration) {
    for (String type : new String[] {"org.flywaydb.core.Flyway",
        "org.flywaydb.database.postgresql.PostgreSQLConfigurationExtension"}) {
      try {
        Class.forName(type, false, ShardMigrations.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new ShardingConfigurationException("Schema migrations of persistence unit '" + config.unitName()
            + "' need Flyway, which is not on the class path (" + type + " is missing): add"
            + " org.flywaydb:flyway-core and org.flywaydb:flyway-database-postgresql (13.12 or later), both optional"
            + " dependencies of shardwise-hibernate");
      }
    }
    return new FlywayMigrations(config, maps, afterMigration);
  }
}
