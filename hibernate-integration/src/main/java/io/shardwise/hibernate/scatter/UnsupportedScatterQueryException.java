package io.shardwise.hibernate.scatter;

import io.shardwise.hibernate.ShardwiseException;

/**
 * A query whose shape cannot be answered correctly by merging per-shard results (a subquery over
 * the whole data set, {@code HAVING}, a window function, {@code count(distinct ...)}, ...). Raised
 * before any SQL is sent; the message names the construct and what to do instead.
 */
public class UnsupportedScatterQueryException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  public UnsupportedScatterQueryException(String message) {
    super(message);
  }
}
