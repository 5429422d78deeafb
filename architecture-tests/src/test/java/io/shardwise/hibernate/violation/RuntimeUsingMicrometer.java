package io.shardwise.hibernate.violation;

/** Breaks "only the metrics implementation uses Micrometer": for {@code RulesCatchViolationsTest} only. */
public class RuntimeUsingMicrometer {
  io.micrometer.core.instrument.MeterRegistry registry;
}
