package io.shardwise.hibernate.violation.cyclea;

/** With {@code UsesA}, a package cycle: for {@code RulesCatchViolationsTest} only. */
public class UsesB {
  io.shardwise.hibernate.violation.cycleb.UsesA other;
}
