package io.shardwise.hibernate;

import io.shardwise.hibernate.internal.tx.SagaRunner;
import java.util.function.Function;
import org.hibernate.Session;

/**
 * Orchestrated sagas over shards, logged in the control database ({@code shardwise.saga},
 * {@code shardwise.saga_step}). Obtain with {@link ShardedSessions#sagas()}.
 *
 * <p>A saga gives up isolation for availability: between two steps, other transactions see the
 * first step's effect without the second's (money debited, not yet credited). See
 * docs/transactions.md.
 */
public final class Sagas {
  private final SagaRunner runner;
  private final Function<String, Session> opener;

  Sagas(SagaRunner runner, Function<String, Session> opener) {
    this.runner = runner;
    this.opener = opener;
  }

  /**
   * Makes a definition known to this instance; recovery resumes only sagas whose definition is
   * registered, so register every definition at startup.
   */
  public Sagas register(SagaDefinition definition) {
    runner.register(definition, opener);
    return this;
  }

  /**
   * Runs a registered saga to its end: every step forward (transient failures retried with
   * backoff), or, when a step fails for good, every applied step compensated in reverse order.
   */
  public SagaOutcome run(String sagaName, String payload) {
    return runner.run(sagaName, payload);
  }

  /** The logged state of a saga: RUNNING, COMPENSATING, COMPLETED or COMPENSATED; null if unknown. */
  public String state(String sagaId) {
    return runner.state(sagaId);
  }
}
