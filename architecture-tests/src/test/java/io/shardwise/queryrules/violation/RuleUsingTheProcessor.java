package io.shardwise.queryrules.violation;

/** Breaks "query rules depend on the annotations only": for {@code RulesCatchViolationsTest} only. */
public class RuleUsingTheProcessor {
  io.shardwise.processor.ShardwiseProcessor processor;
}
