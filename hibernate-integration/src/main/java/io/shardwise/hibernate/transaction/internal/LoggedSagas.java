package io.shardwise.hibernate.transaction.internal;

import io.shardwise.hibernate.transaction.SagaDefinition;
import io.shardwise.hibernate.transaction.SagaOutcome;
import io.shardwise.hibernate.transaction.Sagas;
import java.util.function.Function;
import org.hibernate.Session;

/** {@link Sagas} run by the {@link SagaRunner}, each step in a session the opener gives for its shard. */
public final class LoggedSagas implements Sagas {
  private final SagaRunner runner;
  private final Function<String, Session> opener;

  public LoggedSagas(SagaRunner runner, Function<String, Session> opener) {
    this.runner = runner;
    this.opener = opener;
  }

  @Override
  public Sagas register(SagaDefinition definition) {
    runner.register(definition, opener);
    return this;
  }

  @Override
  public SagaOutcome run(String sagaName, String payload) {
    return runner.run(sagaName, payload);
  }

  @Override
  public String state(String sagaId) {
    return runner.state(sagaId);
  }
}
