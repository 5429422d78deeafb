package io.shardwise.hibernate.wiring.internal;

import io.shardwise.hibernate.transaction.ReferenceTableWriteException;
import io.shardwise.hibernate.transaction.ReferenceTables;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.hibernate.Hibernate;
import org.hibernate.Session;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.engine.spi.TransactionCompletionCallbacks;

/**
 * Writes of {@code @ReferenceTable} entities made in a session of no shard. The session's own
 * connection is some shard's replica, so its inserts, updates and deletes of reference rows are
 * held back (the guard vetoes their SQL at flush) and applied when its transaction commits: on
 * every shard, in one two-phase transaction, through the same {@link ReferenceTables} path as
 * {@code shards.referenceTables().inTransaction(...)}. If that fails, the session's commit fails
 * and no shard changed; a rollback drops them.
 */
final class NoShardReferenceWrites {

  private record Write(String entityName, Object id, Object entity, boolean remove) {}

  /** Per session, the writes of its current transaction; weak keys, so a session never committed is not held. */
  private final Map<SharedSessionContractImplementor, List<Write>> pending =
      Collections.synchronizedMap(new WeakHashMap<>());
  private final ReferenceTables referenceTables;

  NoShardReferenceWrites(ReferenceTables referenceTables) {
    this.referenceTables = referenceTables;
  }

  /** Whether {@code session} holds writes for its commit: such a session never binds to a shard. */
  boolean holdsWrites(SharedSessionContractImplementor session) {
    List<Write> writes = pending.get(session);
    return writes != null && !writes.isEmpty();
  }

  /** Holds back an insert or update: the entity's state at commit is written to every shard. */
  void save(SharedSessionContractImplementor session, String entityName, Object id, Object entity) {
    writesOf(session, entityName, id).add(new Write(entityName, id, entity, false));
  }

  /** Holds back a delete: the row is removed from every shard at commit. */
  void remove(SharedSessionContractImplementor session, String entityName, Object id, Object entity) {
    writesOf(session, entityName, id).add(new Write(entityName, id, entity, true));
  }

  private List<Write> writesOf(SharedSessionContractImplementor session, String entityName, Object id) {
    if (!session.isTransactionInProgress()) {
      throw new ReferenceTableWriteException("[ReferenceTableWrite] Cannot write " + entityName + " #" + id
          + " outside a transaction in a session opened without a shard: such writes go to every shard in one"
          + " atomic transaction when the session's transaction commits. Begin a transaction first. Nothing was"
          + " written.");
    }
    return pending.computeIfAbsent(session, s -> {
      s.getTransactionCompletionCallbacks().registerCallback(
          (TransactionCompletionCallbacks.BeforeCompletionCallback) this::writeEverywhere);
      s.getTransactionCompletionCallbacks().registerCallback(
          (TransactionCompletionCallbacks.AfterCompletionCallback) (committed, done) -> pending.remove(done));
      return new ArrayList<>();
    });
  }

  private void writeEverywhere(SharedSessionContractImplementor session) {
    List<Write> writes = pending.remove(session);
    if (writes == null || writes.isEmpty()) {
      return;
    }
    referenceTables.inTransaction(shardSession -> writes.forEach(write -> apply(shardSession, write)));
  }

  private static void apply(Session shardSession, Write write) {
    if (!write.remove()) {
      shardSession.merge(write.entityName(), write.entity());
      return;
    }
    Object row = shardSession.find(Hibernate.getClass(write.entity()), write.id());
    if (row != null) {
      shardSession.remove(row);
    }
  }
}
