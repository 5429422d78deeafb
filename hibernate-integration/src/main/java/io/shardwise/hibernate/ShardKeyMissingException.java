package io.shardwise.hibernate;

/**
 * A query built at run time reads or writes a sharded entity without pinning its shard key, so it
 * would run on the session's shard alone and silently miss the rows on every other shard. Raised
 * when the query is created, before any SQL is sent. The message quotes the query, names the
 * entity and its shard key, and says how to fix it: add the predicate on the key, or run the query
 * on every shard through the scatter-gather API.
 */
public class ShardKeyMissingException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  public ShardKeyMissingException(String message) {
    super(message);
  }
}
