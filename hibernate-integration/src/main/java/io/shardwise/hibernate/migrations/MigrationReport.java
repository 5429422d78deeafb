package io.shardwise.hibernate.migrations;

import java.util.List;
import java.util.stream.Collectors;

/**
 * What a migration run did, shard by shard, in the order it went.
 *
 * @param shards one entry per shard that was migrated or found up to date
 */
public record MigrationReport(List<ShardMigration> shards) {

  public MigrationReport {
    shards = List.copyOf(shards);
  }

  /**
   * One shard's part of the run.
   *
   * @param fromVersion its version before, or null when it had none
   * @param toVersion its version after, or null when there was nothing to apply to a new shard
   * @param scriptsApplied the scripts run on it
   */
  public record ShardMigration(String shardId, String fromVersion, String toVersion, int scriptsApplied) {
    @Override
    public String toString() {
      String from = fromVersion == null ? "none" : fromVersion;
      return scriptsApplied == 0 ? shardId + ": up to date at " + from
          : shardId + ": " + from + " -> " + toVersion + " (" + scriptsApplied + " script"
              + (scriptsApplied == 1 ? "" : "s") + ")";
    }
  }

  @Override
  public String toString() {
    return shards.isEmpty() ? "no shard migrated"
        : shards.stream().map(ShardMigration::toString).collect(Collectors.joining("\n"));
  }
}
