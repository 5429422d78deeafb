package io.shardwise.testkit.violation;

/** Breaks "the testkit never depends on Shardwise": for {@code RulesCatchViolationsTest} only. */
public class TestkitUsingTheRuntime {
  io.shardwise.hibernate.ShardedSessions shards;
}
