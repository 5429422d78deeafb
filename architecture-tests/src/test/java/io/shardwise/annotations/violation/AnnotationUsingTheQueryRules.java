package io.shardwise.annotations.violation;

/** Breaks "annotations depend on no other module": for {@code RulesCatchViolationsTest} only. */
public class AnnotationUsingTheQueryRules {
  io.shardwise.queryrules.QueryModel model;
}
