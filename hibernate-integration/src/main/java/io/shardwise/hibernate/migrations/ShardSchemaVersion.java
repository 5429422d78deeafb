package io.shardwise.hibernate.migrations;

/**
 * The schema version of one shard, as its Flyway history table records it.
 *
 * @param shardId the shard
 * @param server the primary's host and port (no credentials)
 * @param version the latest successfully applied versioned script, or null when the shard has no
 *     history table (never migrated)
 * @param description that script's description, or null
 * @param failedScript a script whose failure is recorded in the history (a non-transactional script
 *     stopped midway: see {@link Migrations#repair}), or null
 * @param pendingScripts scripts not applied yet, or -1 when unknown (read without Flyway)
 */
public record ShardSchemaVersion(String shardId, String server, String version, String description,
    String failedScript, int pendingScripts) {

  /** The version as shown in reports: the number, {@code none}, and a failed script if there is one. */
  public String shownVersion() {
    String shown = version == null ? "none" : version;
    return failedScript == null ? shown : shown + " (failed: " + failedScript + ")";
  }

  @Override
  public String toString() {
    return shardId + " (" + server + "): version " + shownVersion()
        + (pendingScripts > 0 ? ", " + pendingScripts + " pending" : pendingScripts == 0 ? ", up to date" : "");
  }
}
