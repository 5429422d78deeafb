package io.shardwise.hibernate.transaction.internal;

import java.util.function.Supplier;

/**
 * The one sanctioned way around {@code ShardGuard}'s refusal of reference-table writes: set on the
 * calling thread while the reference-table API applies the same work to every shard in one
 * two-phase transaction.
 */
public final class ReferenceWrites {
  private static final ThreadLocal<Boolean> ALLOWED = new ThreadLocal<>();

  private ReferenceWrites() {}

  public static boolean allowed() {
    return ALLOWED.get() != null;
  }

  /** Runs {@code work} with reference-table writes allowed on this thread. */
  public static <R> R allowDuring(Supplier<R> work) {
    Boolean outer = ALLOWED.get();
    ALLOWED.set(Boolean.TRUE);
    try {
      return work.get();
    } finally {
      if (outer == null) {
        ALLOWED.remove();
      }
    }
  }
}
