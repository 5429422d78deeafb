package io.shardwise.hibernate.migrations.internal;

import io.shardwise.hibernate.ShardUnavailableException;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.migrations.MigrationFailedException;
import io.shardwise.hibernate.migrations.MigrationReport;
import io.shardwise.hibernate.migrations.Migrations;
import io.shardwise.hibernate.migrations.ShardSchemaVersion;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.MigrationInfo;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.flywaydb.core.api.output.MigrateResult;
import org.flywaydb.core.internal.exception.FlywayMigrateException;
import org.flywaydb.database.postgresql.PostgreSQLConfigurationExtension;

/**
 * {@link Migrations} on Flyway, the only class of the runtime that uses it. Each shard gets a Flyway
 * run of its own against its primary: Flyway's lock (a PostgreSQL advisory lock) and its history
 * table are per shard, so two instances migrating at once take turns shard by shard, and a shard's
 * history says exactly how far that shard is. Each script runs in a transaction of its own unless
 * it cannot (e.g. {@code CREATE INDEX CONCURRENTLY}); a transactional script that fails leaves
 * nothing behind, a non-transactional one may leave part of its work and a failed history entry.
 */
final class FlywayMigrations implements Migrations {
  private final ShardwiseConfig config;
  private final Supplier<ShardMap> maps;
  private final Runnable afterMigration;

  FlywayMigrations(ShardwiseConfig config, Supplier<ShardMap> maps, Runnable afterMigration) {
    this.config = config;
    this.maps = maps;
    this.afterMigration = afterMigration;
  }

  @Override
  public MigrationReport migrate() {
    List<MigrationReport.ShardMigration> done = new ArrayList<>();
    try {
      for (ShardDescriptor shard : maps.get().shards().values()) {
        done.add(migrate(shard, new MigrationReport(done)));
      }
    } finally {
      afterMigration.run();
    }
    return new MigrationReport(done);
  }

  private MigrationReport.ShardMigration migrate(ShardDescriptor shard, MigrationReport before) {
    Flyway flyway = flyway(shard);
    try {
      MigrateResult result = flyway.migrate();
      return new MigrationReport.ShardMigration(shard.id(), result.initialSchemaVersion,
          result.migrationsExecuted == 0 ? result.initialSchemaVersion : result.targetSchemaVersion,
          result.migrationsExecuted);
    } catch (FlywayException e) {
      throw failure(shard, before, e);
    }
  }

  private MigrationFailedException failure(ShardDescriptor shard, MigrationReport before, FlywayException e) {
    SQLException sql = sqlCause(e);
    String sqlState = sql == null ? null : sql.getSQLState();
    String where = "shard '" + shard.id() + "' (" + JdbcUrls.hostPort(shard.primaryUrl()) + ")";
    String migrated = before.shards().isEmpty() ? "no shard before it was touched"
        : "shards " + before.shards().stream().map(MigrationReport.ShardMigration::shardId).toList()
            + " before it are migrated";
    if (e instanceof FlywayMigrateException m && m.getMigration() != null) {
      MigrationInfo script = m.getMigration();
      String error = redacted(sql != null ? sql.getMessage() : e.getMessage(), shard);
      String aftermath = m.isExecutableInTransaction()
          ? "The script ran in a transaction and was rolled back: " + shard.id() + " is still at its previous version."
              + " Fix the cause (the data or the schema of this shard; do not edit a script other shards have"
              + " applied), then run `shardwise migrate` again: it continues where each shard is."
          : "The script could not run in a transaction, so part of it may have been applied, and Flyway recorded it"
              + " as failed. Undo what it left on " + shard.id() + ", run `shardwise migrate --repair --shard-id "
              + shard.id() + "` to clear the failed entry, then run `shardwise migrate` again.";
      return new MigrationFailedException("Migration stopped at " + where + ": script " + script.getScript()
          + " (version " + script.getVersion() + ") failed" + (sqlState == null ? "" : " with SQLSTATE " + sqlState)
          + ": " + error + "\n" + aftermath + " The shards after it are untouched; " + migrated + ".",
          shard.id(), script.getScript(), sqlState, before, e);
    }
    return new MigrationFailedException("Migration stopped at " + where + " before any script ran: "
        + redacted(e.getMessage(), shard) + "\nFix that (a shard whose tables predate migrations needs "
        + ShardwiseSettings.MIGRATIONS_BASELINE_VERSION + "; a failed non-transactional script is cleared with"
        + " `shardwise migrate --repair --shard-id " + shard.id() + "` once its effects are undone), then run `shardwise"
        + " migrate` again. The shards after it are untouched; " + migrated + ".", shard.id(), null, sqlState, before,
        e);
  }

  @Override
  public List<ShardSchemaVersion> status() {
    List<ShardSchemaVersion> versions = new ArrayList<>();
    for (ShardDescriptor shard : maps.get().shards().values()) {
      int pending;
      try {
        pending = flyway(shard).info().pending().length;
      } catch (FlywayException e) {
        throw unreachable(shard, e);
      }
      try {
        versions.add(SchemaHistory.read(config, shard, pending));
      } catch (SQLException e) {
        throw unreachable(shard, e);
      }
    }
    return versions;
  }

  @Override
  public void repair(String shardId) {
    ShardDescriptor shard = maps.get().shards().get(shardId);
    if (shard == null) {
      throw new IllegalArgumentException("No shard '" + shardId + "' in the shard map (shards: "
          + maps.get().shards().keySet() + ")");
    }
    try {
      flyway(shard).repair();
    } catch (FlywayException e) {
      throw unreachable(shard, e);
    } finally {
      afterMigration.run();
    }
  }

  private ShardUnavailableException unreachable(ShardDescriptor shard, Exception e) {
    return new ShardUnavailableException("Cannot read the schema history of shard '" + shard.id() + "' ("
        + JdbcUrls.hostPort(shard.primaryUrl()) + "): " + redacted(e.getMessage(), shard),
        shard.id(), "primary " + JdbcUrls.hostPort(shard.primaryUrl()), e);
  }

  private Flyway flyway(ShardDescriptor shard) {
    ShardwiseConfig.MigrationSettings settings = config.migrations();
    FluentConfiguration flyway = Flyway.configure(FlywayMigrations.class.getClassLoader())
        .dataSource(shard.primaryUrl(), config.user(), config.password())
        .locations(settings.locations().toArray(String[]::new))
        .table(settings.table())
        .failOnMissingLocations(true)
        .cleanDisabled(true);
    // Flyway's default holds its advisory lock in an open transaction on a second connection, and
    // CREATE INDEX CONCURRENTLY waits for every older transaction to end: the script would wait on
    // Flyway forever (seen in MigrationsTest). A session-level lock does not block it.
    flyway.getConfigurationExtension(PostgreSQLConfigurationExtension.class).setTransactionalLock(false);
    if (settings.baselineVersion() != null) {
      flyway.baselineOnMigrate(true).baselineVersion(settings.baselineVersion());
    }
    return flyway.load();
  }

  /** A driver or Flyway message with the shard's URL, wherever it appears, shown without its credentials. */
  private static String redacted(String message, ShardDescriptor shard) {
    return String.valueOf(message).replace(shard.primaryUrl(), JdbcUrls.redact(shard.primaryUrl())).strip();
  }

  private static SQLException sqlCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException sql) {
        return sql;
      }
    }
    return null;
  }
}
