package io.shardwise.hibernate;

/**
 * The shard of the current unit of work, for code that opens sessions the ordinary way
 * ({@code sessionFactory.openSession()}, {@code emf.createEntityManager()}, an injected
 * {@code EntityManager}). Shardwise's {@link io.shardwise.hibernate.spi.ShardContextResolver ShardContextResolver} hands it to Hibernate as the
 * tenant identifier when such a session opens.
 *
 * <pre>{@code
 * // e.g. in a servlet filter, once the request's merchant is known
 * try (ShardContext.Scope scope = shards.contextForKey(merchantId)) {
 *   chain.doFilter(request, response);          // every session opened in here uses that shard
 * }
 * }</pre>
 *
 * <p>Scopes nest and restore the previous shard on close. The context is per thread; hand it to
 * another thread by opening a scope there.
 */
public final class ShardContext {
  private static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

  private ShardContext() {}

  /** The shard of the current unit of work, or null. */
  public static String current() {
    return CURRENT.get();
  }

  /** Routes sessions opened on this thread to {@code shardId} until the scope closes. */
  public static Scope use(String shardId) {
    if (shardId == null || shardId.isBlank()) {
      throw new IllegalArgumentException("ShardContext.use needs a shard id; to route by key use"
          + " ShardedSessions.contextForKey(key)");
    }
    String previous = CURRENT.get();
    CURRENT.set(shardId);
    return new Scope(previous);
  }

  /** Restores the shard that was current before it opened. */
  public static final class Scope implements AutoCloseable {
    private final String previous;
    private boolean closed;

    private Scope(String previous) {
      this.previous = previous;
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      if (previous == null) {
        CURRENT.remove();
      } else {
        CURRENT.set(previous);
      }
    }
  }
}
