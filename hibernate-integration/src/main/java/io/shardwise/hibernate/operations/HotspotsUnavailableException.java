package io.shardwise.hibernate.operations;

import io.shardwise.hibernate.ShardwiseException;

/** A hotspot report was asked for while nothing is counted; the message says which setting to change. */
public class HotspotsUnavailableException extends ShardwiseException {
  public HotspotsUnavailableException(String message) {
    super(message);
  }
}
