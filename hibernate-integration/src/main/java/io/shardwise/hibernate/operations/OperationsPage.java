package io.shardwise.hibernate.operations;

import java.net.URI;

/**
 * A running operations page: a read-only web page with the shard map, nodes, in-doubt
 * transactions, sagas, hot keys and resharding progress, and its JSON at {@code /api/state}.
 * Started by {@code ShardedSessions.operationsPage(port)}; closing it stops the server (the session
 * factory is not affected). See docs/operations.md, "The operations page".
 */
public interface OperationsPage extends AutoCloseable {

  /** Where the page is served, e.g. {@code http://127.0.0.1:8089/}. */
  URI uri();

  /** Stops serving. */
  @Override
  void close();
}
