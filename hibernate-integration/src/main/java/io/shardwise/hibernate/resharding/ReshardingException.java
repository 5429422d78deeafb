package io.shardwise.hibernate.resharding;

import io.shardwise.hibernate.ShardwiseException;

/**
 * A move refused a step (bad input, wrong phase, a precondition such as verification not met) or a
 * step failed; the message says what to do. Nothing half-done is left unrecorded: {@code status}
 * shows the move, {@code resume} or {@code cancel} continue from it.
 */
public class ReshardingException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  public ReshardingException(String message) {
    super(message);
  }

  public ReshardingException(String message, Throwable cause) {
    super(message, cause);
  }
}
