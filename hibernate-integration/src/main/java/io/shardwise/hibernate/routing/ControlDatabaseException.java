package io.shardwise.hibernate.routing;

/**
 * The control database that holds the shard map could not be reached, or refused an operation.
 * The message names the database (its URL without query parameters) and the operation; the cause
 * is the driver's {@link java.sql.SQLException}.
 */
public class ControlDatabaseException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ControlDatabaseException(String message, Throwable cause) {
    super(message, cause);
  }
}
