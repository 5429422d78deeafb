package io.shardwise.hibernate.migrations;

import io.shardwise.hibernate.ShardwiseException;

/**
 * A migration failed on one shard; the run stopped there. The shards before it (in {@link #report()})
 * are migrated, the shards after it untouched. The message names the shard, the script and the SQL
 * error, and says whether the script was rolled back (transactional) or may have left part of its
 * work behind (non-transactional), and what to do.
 */
public class MigrationFailedException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  private final String shardId;
  private final String script;
  private final String sqlState;
  private final transient MigrationReport report;

  public MigrationFailedException(String message, String shardId, String script, String sqlState,
      MigrationReport report, Throwable cause) {
    super(message, cause);
    this.shardId = shardId;
    this.script = script;
    this.sqlState = sqlState;
    this.report = report;
  }

  /** The shard the run stopped at. */
  public String shardId() {
    return shardId;
  }

  /** The script that failed there, or null when the failure came before any script (e.g. validation). */
  public String script() {
    return script;
  }

  /** The SQLSTATE of the error, or null. */
  public String sqlState() {
    return sqlState;
  }

  /** The shards migrated (or found up to date) before the failing one. */
  public MigrationReport report() {
    return report;
  }
}
