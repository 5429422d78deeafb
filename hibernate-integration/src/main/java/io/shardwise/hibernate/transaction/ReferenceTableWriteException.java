package io.shardwise.hibernate.transaction;

import io.shardwise.hibernate.ShardwiseException;

/**
 * A reference-table entity was written through a session bound to one shard; reference tables must change on every shard at once.
 */
public class ReferenceTableWriteException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  public ReferenceTableWriteException(String message) {
    super(message);
  }

  public ReferenceTableWriteException(String message, Throwable cause) {
    super(message, cause);
  }
}
