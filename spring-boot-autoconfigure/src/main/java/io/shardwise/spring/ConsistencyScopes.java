package io.shardwise.spring;

import io.shardwise.hibernate.readwrite.ConsistencyScope;

/**
 * The consistency scope (read-your-writes) of the current thread's unit of work, for
 * {@code @Transactional} code: a read-write transaction that commits inside a scope pins it to
 * the shard's WAL position, and a read-only transaction of the scope reads from a replica only
 * when that replica has replayed the scope's writes (else from the primary). The web
 * interceptor binds the scope of the request's consistency token
 * ({@code shardwise.web.consistency-header} / {@code -cookie}), or a new one; other code binds
 * one with {@link #use}.
 */
public final class ConsistencyScopes {
  private static final ThreadLocal<ConsistencyScope> CURRENT = new ThreadLocal<>();

  private ConsistencyScopes() {}

  /** The scope bound to this thread, or null. */
  public static ConsistencyScope current() {
    return CURRENT.get();
  }

  /** Binds {@code scope} to this thread until the returned binding closes (bindings nest). */
  public static Binding use(ConsistencyScope scope) {
    if (scope == null) {
      throw new IllegalArgumentException("ConsistencyScopes.use needs a scope: shards.consistency().scope(id)");
    }
    ConsistencyScope previous = CURRENT.get();
    CURRENT.set(scope);
    return new Binding(previous);
  }

  /** Restores the scope that was bound before. */
  public static final class Binding implements AutoCloseable {
    private final ConsistencyScope previous;
    private boolean closed;

    private Binding(ConsistencyScope previous) {
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
