package io.shardwise.hibernate.migrations;

import io.shardwise.hibernate.ShardwiseException;
import java.util.List;

/**
 * The version gate ({@code shardwise.migrations.gate = refuse}) found shards at different schema
 * versions; the session factory does not start. The message lists each shard's version.
 */
public class SchemaVersionMismatchException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  private final transient List<ShardSchemaVersion> versions;

  public SchemaVersionMismatchException(String message, List<ShardSchemaVersion> versions) {
    super(message);
    this.versions = List.copyOf(versions);
  }

  /** Each shard's version, as the gate read it. */
  public List<ShardSchemaVersion> versions() {
    return versions;
  }
}
