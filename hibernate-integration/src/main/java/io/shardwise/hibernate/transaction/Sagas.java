package io.shardwise.hibernate.transaction;

/**
 * Orchestrated sagas over shards, logged in the control database ({@code shardwise.saga},
 * {@code shardwise.saga_step}). Obtain with {@code ShardedSessions.sagas()}.
 *
 * <p>A saga gives up isolation for availability: between two steps, other transactions see the
 * first step's effect without the second's (money debited, not yet credited). See
 * docs/transactions.md.
 */
public interface Sagas {

  /**
   * Makes a definition known to this instance; recovery resumes only sagas whose definition is
   * registered, so register every definition at startup.
   */
  Sagas register(SagaDefinition definition);

  /**
   * Runs a registered saga to its end: every step forward (transient failures retried with
   * backoff), or, when a step fails for good, every applied step compensated in reverse order.
   */
  SagaOutcome run(String sagaName, String payload);

  /** The logged state of a saga: RUNNING, COMPENSATING, COMPLETED or COMPENSATED; null if unknown. */
  String state(String sagaId);
}
