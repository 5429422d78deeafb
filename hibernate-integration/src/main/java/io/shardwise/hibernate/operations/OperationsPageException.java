package io.shardwise.hibernate.operations;

import io.shardwise.hibernate.ShardwiseException;

/** The operations page could not start (its address is taken or not local); the message says what to change. */
public class OperationsPageException extends ShardwiseException {
  public OperationsPageException(String message, Throwable cause) {
    super(message, cause);
  }
}
