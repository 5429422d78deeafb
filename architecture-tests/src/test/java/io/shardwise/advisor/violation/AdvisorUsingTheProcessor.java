package io.shardwise.advisor.violation;

/** Breaks "the advisor judges by the rule, not by the processor": for {@code RulesCatchViolationsTest} only. */
public class AdvisorUsingTheProcessor {
  io.shardwise.processor.ShardwiseProcessor processor;
}
