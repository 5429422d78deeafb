package io.shardwise.hibernate.transaction.internal;

/**
 * Thrown by a {@link FaultInjector} to stand for the coordinator's death at that point: nothing
 * catches it to clean up, so prepared transactions and half-run sagas stay as a crash leaves them.
 */
public final class CoordinatorCrash extends Error {
  private static final long serialVersionUID = 1L;

  public CoordinatorCrash(String message) {
    super(message);
  }
}
