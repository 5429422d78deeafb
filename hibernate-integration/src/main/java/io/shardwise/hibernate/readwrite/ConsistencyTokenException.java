package io.shardwise.hibernate.readwrite;

import io.shardwise.hibernate.ShardwiseException;

/** A consistency token was forged, tampered with, expired, or is not a Shardwise token at all. */
public class ConsistencyTokenException extends ShardwiseException {
  private static final long serialVersionUID = 1L;

  public ConsistencyTokenException(String message) {
    super(message);
  }
}
