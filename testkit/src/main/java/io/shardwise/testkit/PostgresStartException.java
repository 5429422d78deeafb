package io.shardwise.testkit;

/**
 * A PostgreSQL instance of a test topology could not be prepared or started. The message names the
 * instance and quotes the last lines of its server log, which is where PostgreSQL says why.
 */
public final class PostgresStartException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public PostgresStartException(String message) {
    super(message);
  }

  public PostgresStartException(String message, Throwable cause) {
    super(message, cause);
  }
}
