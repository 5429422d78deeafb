package io.shardwise.hibernate.transaction;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.hibernate.Session;

/**
 * A named saga: ordered steps, each a local transaction on one shard, each with a compensation that
 * undoes it. Steps receive the saga's payload (a string the application encodes, e.g. JSON), so
 * that a saga interrupted by a crash can be resumed from the log by any instance that registered
 * the same definition.
 *
 * <pre>{@code
 * SagaDefinition transfer = SagaDefinition.named("transfer")
 *     .step("debit", p -> from(p),
 *         (s, p) -> s.find(Account.class, from(p)).withdraw(amount(p)),
 *         (s, p) -> s.find(Account.class, from(p)).deposit(amount(p)))
 *     .step("credit", p -> to(p),
 *         (s, p) -> s.find(Account.class, to(p)).deposit(amount(p)),
 *         (s, p) -> s.find(Account.class, to(p)).withdraw(amount(p)))
 *     .build();
 * }</pre>
 *
 * <p>Shardwise runs each step (and each compensation) at most once per saga, whatever the retries
 * and crashes: a marker row keyed by (saga id, step) commits in the step's own local transaction.
 */
public final class SagaDefinition {

  /** One step: where it runs, what it does, how it is undone. */
  public record Step(String name, Function<String, Object> shardKey, BiConsumer<Session, String> action,
      BiConsumer<Session, String> compensation) {}

  private final String name;
  private final List<Step> steps;

  private SagaDefinition(String name, List<Step> steps) {
    this.name = name;
    this.steps = List.copyOf(steps);
  }

  public static Builder named(String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("A saga needs a name: the log records it, and recovery finds the"
          + " definition by it");
    }
    return new Builder(name);
  }

  public String name() {
    return name;
  }

  public List<Step> steps() {
    return steps;
  }

  public static final class Builder {
    private final String name;
    private final List<Step> steps = new ArrayList<>();

    private Builder(String name) {
      this.name = name;
    }

    /**
     * Adds a step.
     *
     * @param shardKey the shard key the step's transaction is routed by, computed from the payload
     * @param action the step's work, in a transaction on that shard
     * @param compensation its undo, in a transaction on the same shard; it must succeed eventually
     */
    public Builder step(String stepName, Function<String, Object> shardKey, BiConsumer<Session, String> action,
        BiConsumer<Session, String> compensation) {
      Objects.requireNonNull(shardKey, () -> "step " + stepName + " of saga " + name + " needs a shard key function");
      Objects.requireNonNull(action, () -> "step " + stepName + " of saga " + name + " needs an action");
      Objects.requireNonNull(compensation, () -> "step " + stepName + " of saga " + name
          + " needs a compensation (use (s, p) -> {} if nothing needs undoing)");
      steps.add(new Step(stepName, shardKey, action, compensation));
      return this;
    }

    public SagaDefinition build() {
      if (steps.isEmpty()) {
        throw new IllegalArgumentException("Saga " + name + " has no steps");
      }
      return new SagaDefinition(name, steps);
    }
  }
}
