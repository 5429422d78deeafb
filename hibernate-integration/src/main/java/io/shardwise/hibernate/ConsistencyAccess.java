package io.shardwise.hibernate;

/** Lets the runtime create the {@link Consistency} facade without making its constructor public. */
public final class ConsistencyAccess {
  private ConsistencyAccess() {}

  /**
   * @param secret signs and verifies tokens; null when none is configured
   * @param acceptedSecret verifies tokens only (secret rotation); null when none
   * @param minLifetimeMillis how long a token lives at least, pins or not
   */
  public static Consistency create(PinStore store, byte[] secret, byte[] acceptedSecret, String unitName,
      long minLifetimeMillis) {
    return new Consistency(store, secret, acceptedSecret, unitName, minLifetimeMillis);
  }
}
