package io.shardwise.processor.violation;

/** Breaks "the processor never depends on the runtime": for {@code RulesCatchViolationsTest} only. */
public class ProcessorUsingTheRuntime {
  io.shardwise.hibernate.ShardedSessions shards;
}
