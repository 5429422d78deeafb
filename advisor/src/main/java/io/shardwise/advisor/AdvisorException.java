package io.shardwise.advisor;

/** The advisor cannot run as asked; the message says what to change. */
public final class AdvisorException extends RuntimeException {
  public AdvisorException(String message) {
    super(message);
  }

  public AdvisorException(String message, Throwable cause) {
    super(message, cause);
  }
}
