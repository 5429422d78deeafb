package io.shardwise.hibernate.internal.jdbc;

/**
 * Times the statements sent to one server (a shard's primary or one of its replicas). The JDBC
 * wrapper of Shardwise's connections calls it; a connection without one ({@code null}, when no
 * {@code MeterRegistry} is configured) tests that and does nothing else, so statements cost no
 * clock read and no call. Obtained once per server, when its pool is created, from
 * {@code metrics.internal.StatementTimers}. It lives here, beside its only caller, so that the JDBC
 * layer depends on no metrics type.
 */
public interface StatementTimer {

  /** One statement ran for {@code nanos} (from the call into the driver until it returned or threw). */
  void record(Operation operation, long nanos, boolean failed);

  /** The {@code operation} tag of {@code shardwise.statement}: which JDBC call ran the statement. */
  enum Operation {
    /** {@code executeQuery}: a statement that returns rows. */
    QUERY("query"),
    /** {@code executeUpdate} and {@code executeLargeUpdate}: a row count. */
    UPDATE("update"),
    /** {@code executeBatch} and {@code executeLargeBatch}: one batch, timed as one. */
    BATCH("batch"),
    /** {@code execute}: a statement whose result kind the caller did not say (DDL, procedures). */
    EXECUTE("execute");

    private final String tag;

    Operation(String tag) {
      this.tag = tag;
    }

    public String tag() {
      return tag;
    }
  }
}
