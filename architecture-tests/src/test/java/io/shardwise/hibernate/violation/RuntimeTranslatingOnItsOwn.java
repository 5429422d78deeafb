package io.shardwise.hibernate.violation;

import io.shardwise.hibernate.TransactionAbortedException;

/** Breaks "only ShardFailures translates a shard's failure into an abort": for {@code RulesCatchViolationsTest} only. */
public class RuntimeTranslatingOnItsOwn {
  RuntimeException translate(RuntimeException e) {
    return new TransactionAbortedException("a second translation", true, e);
  }
}
