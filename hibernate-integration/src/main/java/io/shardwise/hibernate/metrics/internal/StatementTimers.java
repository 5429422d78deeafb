package io.shardwise.hibernate.metrics.internal;

import io.shardwise.hibernate.internal.jdbc.StatementTimer;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;

/**
 * A recorder that times statements: the Micrometer one. The pools ask {@link #of} once per server
 * when they create its pool; a recorder that records nothing gives {@code null}, and statements then
 * cost a field test. Kept out of {@link ShardwiseMetrics} so that the public recorder type names no
 * type of the JDBC layer. Names no Micrometer type, so asking it does not load Micrometer.
 */
public interface StatementTimers {

  /** The timer of the statements sent to one server. */
  StatementTimer statementTimer(String shardId, String role, String node);

  /**
   * The timer of one server's statements, or {@code null} when {@code metrics} records nothing.
   *
   * @param role {@code primary} or {@code replica}
   * @param node the server as {@code host:port}, like the pool meters' {@code node} tag
   */
  static StatementTimer of(ShardwiseMetrics metrics, String shardId, String role, String node) {
    return metrics instanceof StatementTimers timers ? timers.statementTimer(shardId, role, node) : null;
  }
}
