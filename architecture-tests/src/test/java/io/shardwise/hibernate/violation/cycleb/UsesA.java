package io.shardwise.hibernate.violation.cycleb;

/** With {@code UsesB}, a package cycle: for {@code RulesCatchViolationsTest} only. */
public class UsesA {
  io.shardwise.hibernate.violation.cyclea.UsesB other;
}
