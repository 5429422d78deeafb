package io.shardwise.spring;

import io.shardwise.hibernate.readwrite.ConsistencyScope;
import io.shardwise.hibernate.readwrite.Pin;
import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.hibernate.ShardContext;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.spi.ShardwiseConnectionProvider;
import jakarta.persistence.EntityManager;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.function.Supplier;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.springframework.orm.jpa.EntityManagerHolder;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.DefaultTransactionStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Spring's {@link JpaTransactionManager}, with {@code @Transactional(readOnly = true)} served by a
 * replica of the current shard, and read-your-writes for the thread's {@link ConsistencyScopes
 * consistency scope}.
 *
 * <p>Spring's JPA dialect turns a read-only transaction into {@code FlushMode.MANUAL} and
 * {@code Connection.setReadOnly(true)} on an ordinary session, which Hibernate has already bound
 * to the shard's primary. Hibernate decides primary or replica when a session opens
 * ({@code sessionFactory.withOptions().readOnly(true)} draws its connection from the connection
 * provider's {@code getReadOnlyConnection}), so this manager opens the transaction's session that
 * way when the transaction is read-only. The shard is the {@link ShardContext} open at that
 * moment: choose it before the transaction begins ({@link WithShard}, the web interceptor). A
 * read-write transaction runs on the primary, as before. The session of a read-only transaction is
 * a read-only session: writes are refused by Hibernate, row locks by Shardwise before any SQL. A
 * transaction that joins an existing one uses the outer one's session.
 *
 * <p>Read-your-writes: when a read-write transaction that wrote (PostgreSQL assigned it a
 * transaction id, or the session holds unflushed changes) commits inside a consistency scope, the
 * scope is pinned to the primary's WAL position after the commit. A read-only transaction of the
 * scope then uses a replica only if every replica of the shard has replayed past that position,
 * as the replica monitor last saw them; otherwise its session opens on the primary, still with
 * Spring's read-only flags. The scope's binding then hears of the pin (the web interceptor hands
 * the client the new token at that moment, before a redirect or a view commits the response).
 */
public class ShardwiseJpaTransactionManager extends JpaTransactionManager {
  private static final long serialVersionUID = 1L;

  private static final ThreadLocal<Boolean> BEGINNING_READ_ONLY = new ThreadLocal<>();

  private transient Supplier<ShardedSessions> shards;
  private transient Supplier<ShardwiseConnectionProvider> connections;
  private long pinTtlMillis = 60_000;

  public ShardwiseJpaTransactionManager() {}

  /** What read-your-writes needs: the sessions (pins, replica status) and the connection provider. */
  public void setReadYourWrites(Supplier<ShardedSessions> shards, Supplier<ShardwiseConnectionProvider> connections,
      long pinTtlMillis) {
    this.shards = shards;
    this.connections = connections;
    this.pinTtlMillis = pinTtlMillis;
  }

  @Override
  protected void doBegin(Object transaction, TransactionDefinition definition) {
    Boolean outer = BEGINNING_READ_ONLY.get();
    BEGINNING_READ_ONLY.set(definition.isReadOnly());
    try {
      super.doBegin(transaction, definition);
    } finally {
      if (outer == null) {
        BEGINNING_READ_ONLY.remove();
      } else {
        BEGINNING_READ_ONLY.set(outer);
      }
    }
  }

  @Override
  protected EntityManager createEntityManagerForTransaction() {
    if (Boolean.TRUE.equals(BEGINNING_READ_ONLY.get()) && !scopeNeedsThePrimary()) {
      SessionFactory sessionFactory = obtainEntityManagerFactory().unwrap(SessionFactory.class);
      return sessionFactory.withOptions().readOnly(true).openSession();
    }
    return super.createEntityManagerForTransaction();
  }

  @Override
  protected void doCommit(DefaultTransactionStatus status) {
    ConsistencyScope scope = ConsistencyScopes.current();
    Session session = scope == null || shards == null || status.isReadOnly() ? null : transactionSession();
    // a session opened without a shard has one once it used a key; before, it wrote no sharded row
    String shardId = session == null ? null : ShardedSessions.shardOf(session);
    boolean wrote = shardId != null && wrote(session);
    super.doCommit(status);
    if (wrote) {
      pin(scope, shardId);
      ConsistencyScopes.pinned();
    }
  }

  /**
   * Whether the current read-only transaction's scope has a write on its shard that not every
   * replica has replayed. Without a {@link ShardContext} the shard is known only when the session
   * binds to its first key, after it opened: then any shard the scope wrote and not every replica
   * replayed sends it to the primaries.
   */
  private boolean scopeNeedsThePrimary() {
    ConsistencyScope scope = ConsistencyScopes.current();
    if (scope == null || shards == null) {
      return false;
    }
    ShardedSessions sessions = shards.get();
    String shardId = ShardContext.current();
    if (shardId != null) {
      return needsThePrimary(sessions, shardId, sessions.consistency().pins(scope).get(shardId));
    }
    for (java.util.Map.Entry<String, Pin> pinned : sessions.consistency().pins(scope).entrySet()) {
      if (needsThePrimary(sessions, pinned.getKey(), pinned.getValue())) {
        return true;
      }
    }
    return false;
  }

  private static boolean needsThePrimary(ShardedSessions sessions, String shardId, Pin pin) {
    if (pin == null || pin.expired(System.currentTimeMillis())) {
      return false;
    }
    if (pin.primaryUntilMillis() > System.currentTimeMillis()) {
      return true;
    }
    List<ReplicaStatus> replicas = sessions.replicaStatus().stream().filter(r -> r.shardId().equals(shardId)).toList();
    for (ReplicaStatus replica : replicas) {
      if (replica.replayLsn() == null || Long.compareUnsigned(lsn(replica.replayLsn()), pin.minLsn()) < 0) {
        return true;
      }
    }
    return false;
  }

  private Session transactionSession() {
    Object holder = TransactionSynchronizationManager.getResource(obtainEntityManagerFactory());
    return holder instanceof EntityManagerHolder emHolder ? emHolder.getEntityManager().unwrap(Session.class) : null;
  }

  private static boolean wrote(Session session) {
    if (session.isDirty()) {
      return true;
    }
    return session.doReturningWork(c -> {
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select txid_current_if_assigned()")) {
        rs.next();
        return rs.getObject(1) != null;
      }
    });
  }

  private void pin(ConsistencyScope scope, String shardId) {
    ShardwiseConnectionProvider provider = connections.get();
    long lsn;
    try {
      Connection c = provider.getConnection(shardId);
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("select pg_current_wal_lsn()::text")) {
        rs.next();
        lsn = lsn(rs.getString(1));
      } finally {
        provider.releaseConnection(shardId, c);
      }
    } catch (SQLException e) {
      throw new io.shardwise.hibernate.ShardUnavailableException("The transaction committed on shard '" + shardId
          + "', but its WAL position could not be read to pin consistency scope '" + scope.id() + "': "
          + e.getMessage() + ". The scope's next reads could miss the write; retry them on the primary.", e);
    }
    long now = System.currentTimeMillis();
    shards.get().consistency().store().pin(scope.id(), shardId, new Pin(lsn, 0, 0, now + pinTtlMillis));
  }

  /** A PostgreSQL LSN as printed ({@code 16/B374D848}): high and low 32 bits in hex. */
  static long lsn(String text) {
    int slash = text.indexOf('/');
    return (Long.parseLong(text.substring(0, slash), 16) << 32) | Long.parseLong(text.substring(slash + 1), 16);
  }
}
