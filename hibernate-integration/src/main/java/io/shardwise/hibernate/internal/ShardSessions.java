package io.shardwise.hibernate.internal;

import io.shardwise.hibernate.ShardContext;
import io.shardwise.hibernate.metrics.SessionKind;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.hibernate.SessionEventListener;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.StatelessSession;

/** The one way Shardwise opens a Hibernate session on a shard. */
public final class ShardSessions {
  /**
   * The tenant identifier of a session opened without a shard (no shard can be named so): it reads
   * {@code @ReferenceTable} entities from any healthy shard and refuses sharded ones.
   */
  public static final String NO_SHARD = "(no shard)";

  /**
   * The shard of the session {@link #open} is opening on this thread, for the tenant resolver: one
   * one-element array per thread, written in place, so that opening a session neither allocates a
   * thread-local entry nor removes one (a JDK type, so a pooled thread pins no application class loader).
   */
  private static final ThreadLocal<String[]> OPENING = ThreadLocal.withInitial(() -> new String[1]);

  /** The session whose transaction Shardwise runs work in on this thread, for scatter queries to join. */
  private static final ThreadLocal<Session> IN_TRANSACTION = new ThreadLocal<>();

  /**
   * Sessions opened without a shard that have bound to one since ({@link #bind}): removed when the
   * session closes. Only such sessions are here, and only {@link #shardOf} a session of no shard looks.
   */
  private static final Map<SharedSessionContractImplementor, Binding> BOUND = new ConcurrentHashMap<>();

  /** The shard of the bound session whose connection Hibernate acquires on this thread now, else null. */
  private static final ThreadLocal<String[]> ACQUIRING = ThreadLocal.withInitial(() -> new String[1]);

  private ShardSessions() {}

  /**
   * The shard a session works on: the one it was opened on, else the one it bound to at its first
   * key ({@link #bind}), else {@link #NO_SHARD}.
   */
  public static String shardOf(SharedSessionContractImplementor session) {
    // the raw value: getTenantIdentifier() formats it through its JavaType on every call
    Object tenant = session.getTenantIdentifierValue();
    if (!NO_SHARD.equals(tenant)) {
      return tenant instanceof String shard ? shard : session.getTenantIdentifier();
    }
    Binding binding = BOUND.get(session);
    return binding == null ? NO_SHARD : binding.shardId;
  }

  /**
   * Binds a session opened without a shard to {@code shardId} for the rest of its life: the
   * connection it holds continues on that shard ({@link LateBoundConnection#bindTo}), and every
   * connection it acquires later is that shard's. The caller has checked that the session is
   * unbound and has written nothing.
   */
  public static void bind(SharedSessionContractImplementor session, String shardId) {
    var logical = session.getJdbcCoordinator().getLogicalConnection();
    if (logical.isPhysicallyConnected() && logical.getPhysicalConnection() instanceof LateBoundConnection connection) {
      connection.bindTo(shardId);
    }
    Binding binding = new Binding(session, shardId);
    BOUND.put(session, binding);
    session.getEventListenerManager().addListener(binding);
  }

  /**
   * The shard of the bound session of no shard whose connection Hibernate is acquiring on this
   * thread, for the connection provider; else null (an unbound session's connection).
   */
  public static String acquiringFor() {
    return ACQUIRING.get()[0];
  }

  /** One session's binding: it tells the provider the shard while the session acquires a connection, and leaves at close. */
  private static final class Binding implements SessionEventListener {
    private static final long serialVersionUID = 1L;
    private final transient SharedSessionContractImplementor session;
    private final String shardId;

    Binding(SharedSessionContractImplementor session, String shardId) {
      this.session = session;
      this.shardId = shardId;
    }

    @Override
    public void jdbcConnectionAcquisitionStart() {
      ACQUIRING.get()[0] = shardId;
    }

    @Override
    public void jdbcConnectionAcquisitionEnd() {
      ACQUIRING.get()[0] = null;
    }

    @Override
    public void end() {
      BOUND.remove(session);
    }
  }

  /** Runs {@code work} with {@code session} as this thread's session in a transaction (see {@link #inTransaction()}). */
  public static <R> R runInTransactionOf(Session session, Supplier<R> work) {
    Session outer = IN_TRANSACTION.get();
    IN_TRANSACTION.set(session);
    try {
      return work.get();
    } finally {
      if (outer == null) {
        IN_TRANSACTION.remove();
      } else {
        IN_TRANSACTION.set(outer);
      }
    }
  }

  /**
   * The session of the transaction that Shardwise's unit of work runs on this thread (the
   * innermost one), while that transaction is active; else null.
   */
  public static Session inTransaction() {
    return ifTransactionActive(IN_TRANSACTION.get());
  }

  /** {@code session} if it is open and its transaction active; else null (also for null). */
  public static Session ifTransactionActive(Session session) {
    return session != null && session.isOpen() && session.getTransaction().isActive() ? session : null;
  }

  /**
   * A new session bound to {@code shardId}. Hibernate asks the tenant resolver when the session
   * builder is created, before {@code tenantIdentifier(...)} applies: the resolver is answered with
   * this shard for that moment ({@link #opening()}) rather than let it refuse a session that does
   * name its shard, or count it as a session of the thread's {@link ShardContext}.
   */
  public static Session open(SessionFactory sessionFactory, String shardId, boolean readOnly) {
    if (shardId == null) {
      throw new IllegalArgumentException("A shard session needs a shard id, was null; to route by key use"
          + " ShardedSessions.forKey(key)");
    }
    String[] opening = OPENING.get();
    String outer = opening[0];
    opening[0] = shardId;
    try {
      return sessionFactory.withOptions().tenantIdentifier((Object) shardId).readOnly(readOnly).openSession();
    } finally {
      opening[0] = outer;
    }
  }

  /** The same, counted as a session of {@code kind} on {@code shardId}. */
  public static Session open(SessionFactory sessionFactory, String shardId, boolean readOnly,
      ShardwiseMetrics metrics, SessionKind kind) {
    Session session = open(sessionFactory, shardId, readOnly);
    metrics.sessionOpened(kind, shardId);
    return session;
  }

  /**
   * A read-only stateless session on {@code shardId} for work that needs a session but runs no SQL
   * on it (binding a statement's values): it would acquire a connection only at its first statement.
   * The caller closes it.
   */
  public static StatelessSession openForBinding(SessionFactory sessionFactory, String shardId) {
    String[] opening = OPENING.get();
    String outer = opening[0];
    opening[0] = shardId;
    try {
      return sessionFactory.withStatelessOptions().tenantIdentifier((Object) shardId).readOnly(true)
          .openStatelessSession();
    } finally {
      opening[0] = outer;
    }
  }

  /** The shard of a session {@link #open} is opening on this thread, else null. */
  public static String opening() {
    return OPENING.get()[0];
  }

  /**
   * A stateless session on {@code parent}'s connection, inside its transaction, as hibernate-processor's
   * Jakarta Data repositories take one. It is handed the parent's JDBC connection rather than built with
   * {@code statelessWithOptions().connection()}: Hibernate 7.4 refuses that child whenever the session
   * factory is multi-tenant (it compares the tenants the wrong way round).
   */
  public static StatelessSession openStatelessSharing(Session parent) {
    java.sql.Connection connection = parent.doReturningWork(c -> c);
    String[] opening = OPENING.get();
    String outer = opening[0];
    String shard = shardOf(parent.unwrap(SharedSessionContractImplementor.class));
    opening[0] = shard;
    try {
      return parent.getSessionFactory().withStatelessOptions().connection(connection)
          .tenantIdentifier((Object) shard).readOnly(parent.isDefaultReadOnly())
          .openStatelessSession();
    } finally {
      opening[0] = outer;
    }
  }
}
