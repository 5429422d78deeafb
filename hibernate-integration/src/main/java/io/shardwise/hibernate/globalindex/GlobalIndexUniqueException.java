package io.shardwise.hibernate.globalindex;

import io.shardwise.hibernate.ShardwiseException;

/**
 * A write would give a second live entity a value of a {@code @GlobalIndex(unique = true)}
 * attribute, or the value is being written by another transaction right now. Raised before the
 * entity's row is written.
 */
public class GlobalIndexUniqueException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  public GlobalIndexUniqueException(String message) {
    super(message);
  }
}
