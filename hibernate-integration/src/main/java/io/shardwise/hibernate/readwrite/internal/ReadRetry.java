package io.shardwise.hibernate.readwrite.internal;

/**
 * The replica a read-only unit of work is being retried away from, for the thread that retries
 * it: set around the one retry, read by the read path when it picks a replica. Nothing is set on
 * any other read, which then costs one thread-local read.
 */
public final class ReadRetry {
  private static final ThreadLocal<String> AVOIDED_NODE = new ThreadLocal<>();

  private ReadRetry() {}

  /** Until {@link #done()}, reads on this thread skip the replica messages name {@code node} ({@code replica host:port}). */
  public static void avoid(String node) {
    AVOIDED_NODE.set(node);
  }

  public static void done() {
    AVOIDED_NODE.remove();
  }

  static String avoidedNode() {
    return AVOIDED_NODE.get();
  }
}
