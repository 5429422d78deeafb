package io.shardwise.hibernate.internal.jdbc;

/**
 * Times the statements, and the transactions, sent to one server (a shard's primary or one of its replicas). The JDBC
 * wrapper of Shardwise's connections calls it; a connection without one ({@code null}, when no
 * {@code MeterRegistry} is configured) tests that and does nothing else, so statements cost no
 * clock read and no call. Obtained once per server, when its pool is created, from
 * {@code metrics.internal.StatementTimers}. It lives here, beside its only caller, so that the JDBC
 * layer depends on no metrics type.
 */
public interface StatementTimer {

  /** One statement ran for {@code nanos} (from the call into the driver until it returned or threw). */
  void record(Operation operation, long nanos, boolean failed);

  /**
   * One transaction on this server ended after {@code nanos} (from its begin, or its first statement,
   * to its commit or rollback). {@code readOnly}: the connection was read-only (a replica's always is).
   * By default nothing is recorded (a timer of statements only).
   */
  default void transaction(long nanos, boolean readOnly, TransactionOutcome outcome) {}

  /** The {@code outcome} tag of {@code shardwise.transaction}. */
  enum TransactionOutcome {
    /** The commit succeeded. */
    COMMITTED("committed"),
    /** Rolled back: by the application, or by the pool when the connection was closed in the transaction. */
    ROLLED_BACK("rolled-back"),
    /** The commit threw, or the connection was lost: the server ended the transaction, or its outcome is unknown. */
    FAILED("failed"),
    /**
     * Prepared ({@code PREPARE TRANSACTION}) as a participant of a cross-shard transaction: the
     * connection's part ends there; the transaction's outcome is counted by the coordinator.
     */
    PREPARED("prepared");

    private final String tag;

    TransactionOutcome(String tag) {
      this.tag = tag;
    }

    public String tag() {
      return tag;
    }
  }

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
