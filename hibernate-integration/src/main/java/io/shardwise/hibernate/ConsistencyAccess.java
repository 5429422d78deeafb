package io.shardwise.hibernate;

/** Lets the runtime create the {@link Consistency} facade without making its constructor public. */
public final class ConsistencyAccess {
  private ConsistencyAccess() {}

  public static Consistency create(PinStore store, byte[] secret, String unitName) {
    return new Consistency(store, secret, unitName);
  }
}
