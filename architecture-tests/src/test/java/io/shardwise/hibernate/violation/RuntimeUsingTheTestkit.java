package io.shardwise.hibernate.violation;

/** Breaks "the runtime depends on no tool or app": for {@code RulesCatchViolationsTest} only. */
public class RuntimeUsingTheTestkit {
  io.shardwise.testkit.PostgresTopology topology;
}
