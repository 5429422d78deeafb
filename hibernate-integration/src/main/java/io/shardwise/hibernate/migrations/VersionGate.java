package io.shardwise.hibernate.migrations;

/**
 * What a session factory does when it starts and finds its shards at different schema versions
 * ({@code shardwise.migrations.gate}). Shards without a history table count as version "none";
 * when no shard has one, migrations are not in use and every gate passes.
 */
public enum VersionGate {
  /** The session factory refuses to start ({@link SchemaVersionMismatchException}); the default. */
  REFUSE,
  /**
   * The session factory starts; every shard not at the highest version (or with a failed script) is
   * unavailable: its sessions fail with {@code ShardUnavailableException} saying its version, until
   * {@code migrate()} of this session factory brings it level.
   */
  MARK_UNAVAILABLE,
  /** No check. */
  OFF
}
