package io.shardwise.hibernate.violation;

/** Breaks "only the migrations implementation uses Flyway": for {@code RulesCatchViolationsTest} only. */
public class RuntimeUsingFlyway {
  org.flywaydb.core.Flyway flyway;
}
