package io.shardwise.sample.violation;

/** Breaks "nothing outside the runtime uses its internals": for {@code RulesCatchViolationsTest} only. */
public class AppUsingAnInternal {
  io.shardwise.hibernate.internal.ShardPools pools;
}
