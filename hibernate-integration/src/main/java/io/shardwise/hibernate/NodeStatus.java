package io.shardwise.hibernate;

import java.time.Instant;

/**
 * What the circuit breaker in front of one server has seen, from
 * {@link ShardedSessions#nodeStatus()}.
 *
 * @param shardId the shard
 * @param node the server, as failure messages name it: {@code primary host:port} or {@code replica host:port}
 * @param state the breaker's state
 * @param consecutiveFailures timeouts and connection failures since the last success
 * @param lastFailure what the last of them said, or null when there was none
 * @param openedAt when the breaker last opened, or null when it never did
 */
public record NodeStatus(String shardId, String node, BreakerState state, int consecutiveFailures,
    String lastFailure, Instant openedAt) {}
