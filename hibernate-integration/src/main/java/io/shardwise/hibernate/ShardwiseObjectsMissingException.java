package io.shardwise.hibernate;

/**
 * Shardwise's own tables are missing from a database (or the application's role may not use them),
 * and {@code shardwise.ddl} is not {@code create}, so Shardwise did not create them. The message
 * names the database and carries the SQL to run there once as an administrator; {@link #sql()}
 * returns that SQL alone. Nothing was created.
 */
public final class ShardwiseObjectsMissingException extends ShardingConfigurationException {
  private static final long serialVersionUID = 1L;

  private final String database;
  private final String sql;

  /**
   * @param database where the SQL must run (a shard id or a role of the database, and its redacted URL)
   * @param problems what the catalog showed, e.g. {@code table shardwise.saga_applied is missing}
   * @param sql the script that creates the objects and grants the role what it needs
   */
  public ShardwiseObjectsMissingException(String database, String problems, String sql) {
    super("Shardwise's objects are not in place in " + database + ": " + problems + ". Shardwise runs its own"
        + " DDL only with " + ShardwiseSettings.DDL + " = create; with " + ShardwiseSettings.DDL + " = validate"
        + " (the default) an administrator runs this once in " + database + ":\n\n" + sql + "\n\n(or set "
        + ShardwiseSettings.DDL + " = create, and give the application's role CREATE on that database;"
        + " docs/security.md lists every feature's objects and privileges)");
    this.database = database;
    this.sql = sql;
  }

  /** Where the SQL must run. */
  public String database() {
    return database;
  }

  /** The SQL that creates the missing objects and grants the role what it needs. */
  public String sql() {
    return sql;
  }
}
