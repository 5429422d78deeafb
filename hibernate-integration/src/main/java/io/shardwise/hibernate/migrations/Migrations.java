package io.shardwise.hibernate.migrations;

import java.util.List;

/**
 * The application's schema on every shard, evolved with Flyway: the same versioned scripts
 * ({@code shardwise.migrations.locations}) applied to each shard primary, one shard at a time, each
 * in a Flyway run of its own (its own connection, its own lock on that shard's history table).
 * Obtained from {@code ShardedSessions.migrations()} or {@code Shardwise.migrations(settings)};
 * needs {@code org.flywaydb:flyway-core} and {@code flyway-database-postgresql} on the class path.
 *
 * <p>Reference tables live on every shard, so their DDL belongs in these scripts too. Shardwise's own
 * objects (schema {@code shardwise}, the control database) are not migrated here: they follow
 * {@code shardwise.ddl} (docs/security.md).
 */
public interface Migrations {

  /**
   * Brings every shard, in shard-map order, to the latest script. Stops at the first shard whose
   * migration fails: the shards before it are migrated, the ones after it untouched. Running it again
   * after the fix continues where each shard is (a shard already at the latest script is left alone).
   *
   * @return what each shard went from and to
   * @throws MigrationFailedException naming the shard, the script and the SQL error, with the
   *     report of the shards migrated before it
   */
  MigrationReport migrate();

  /** Which shard is at which version, with the scripts still pending on it; connects to every primary. */
  List<ShardSchemaVersion> status();

  /**
   * Flyway's repair on one shard: removes the history entry of a failed non-transactional script
   * (so that {@link #migrate()} tries it again) and realigns checksums. Undo what such a script left
   * behind first; repair does not touch the schema.
   */
  void repair(String shardId);
}
