package io.shardwise.hibernate.id;

/**
 * {@link Snowflake#nextIdMatching} drew as many ids as it was allowed and the condition accepted
 * none of them. Nothing is lost but sequence numbers.
 */
public class NoMatchingIdException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final int draws;

  public NoMatchingIdException(String message, int draws) {
    super(message);
    this.draws = draws;
  }

  /** How many ids were drawn. */
  public int draws() {
    return draws;
  }
}
