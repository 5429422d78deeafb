package io.shardwise.hibernate.transaction;

/**
 * How a saga ended when {@link Sagas#run} returned.
 *
 * @param state {@code COMPLETED} (every step applied), {@code COMPENSATED} (a step failed and every
 *     applied step was undone), or {@code COMPENSATING} (undoing is not finished — a shard did not
 *     answer; recovery keeps retrying it)
 * @param failure why a step failed, or null
 */
public record SagaOutcome(String sagaId, String state, String failure) {

  public boolean completed() {
    return "COMPLETED".equals(state);
  }
}
