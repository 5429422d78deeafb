package io.shardwise.spring;

import io.shardwise.hibernate.readwrite.ConsistencyScope;
import java.util.function.Consumer;

/**
 * The consistency scope (read-your-writes) of the current thread's unit of work, for
 * {@code @Transactional} code: a read-write transaction that commits inside a scope pins it to
 * the shard's WAL position, and a read-only transaction of the scope reads from a replica only
 * when that replica has replayed the scope's writes (else from the primary). The web
 * interceptor binds the scope of the request's consistency token
 * ({@code shardwise.web.consistency-header} / {@code -cookie}), or a new one, with a callback that
 * hands the client the new token as soon as a transaction of the request commits a write; other
 * code binds one with {@link #use}.
 */
public final class ConsistencyScopes {
  private static final ThreadLocal<Bound> CURRENT = new ThreadLocal<>();

  private record Bound(ConsistencyScope scope, Consumer<ConsistencyScope> afterPin) {}

  private ConsistencyScopes() {}

  /** The scope bound to this thread, or null. */
  public static ConsistencyScope current() {
    Bound bound = CURRENT.get();
    return bound == null ? null : bound.scope();
  }

  /** Binds {@code scope} to this thread until the returned binding closes (bindings nest). */
  public static Binding use(ConsistencyScope scope) {
    return use(scope, null);
  }

  /**
   * Binds {@code scope} like {@link #use(ConsistencyScope)}; {@code afterPin} runs on this thread
   * each time a transaction of the scope commits a write and the scope is pinned to it.
   */
  public static Binding use(ConsistencyScope scope, Consumer<ConsistencyScope> afterPin) {
    if (scope == null) {
      throw new IllegalArgumentException("ConsistencyScopes.use needs a scope: shards.consistency().scope(id)");
    }
    Bound previous = CURRENT.get();
    CURRENT.set(new Bound(scope, afterPin));
    return new Binding(previous);
  }

  /** Called by the transaction manager once it pinned the current scope to a committed write. */
  static void pinned() {
    Bound bound = CURRENT.get();
    if (bound != null && bound.afterPin() != null) {
      bound.afterPin().accept(bound.scope());
    }
  }

  /** Restores the scope that was bound before. */
  public static final class Binding implements AutoCloseable {
    private final Bound previous;
    private boolean closed;

    private Binding(Bound previous) {
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
