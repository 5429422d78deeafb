package io.shardwise.hibernate.transaction.internal;

import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.transaction.CrossShardTransaction;
import jakarta.persistence.EntityNotFoundException;
import jakarta.persistence.LockModeType;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import org.hibernate.Session;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.persister.entity.EntityPersister;

/**
 * The cross-shard transaction handed to the work of {@code atomically}: the coordinator's
 * transaction, plus {@link #lock}, which needs the sharding model (only an entity whose id is its
 * shard key can be routed by id) and remembers the highest id it locked (so that every lock of the
 * transaction keeps the one global order).
 */
public final class LockingTransaction implements CrossShardTransaction {
  private final CrossShardTransaction delegate;
  private final Function<Class<?>, ShardedEntity> entities;
  /** The ids locked so far, in the global order, each with the entity type it was locked for. */
  private final TreeMap<Comparable<Object>, Class<?>> locked = new TreeMap<>();

  public LockingTransaction(CrossShardTransaction delegate, Function<Class<?>, ShardedEntity> entities) {
    this.delegate = delegate;
    this.entities = entities;
  }

  @Override
  public void on(Object key, Consumer<Session> work) {
    delegate.on(key, work);
  }

  @Override
  public <R> R from(Object key, Function<Session, R> work) {
    return delegate.from(key, work);
  }

  @Override
  public void onShard(String shardId, Consumer<Session> work) {
    delegate.onShard(shardId, work);
  }

  @Override
  public Set<String> shards() {
    return delegate.shards();
  }

  @Override
  public <T> List<T> lock(Class<T> type, Object... ids) {
    ShardedEntity entity = entities.apply(type);
    if (entity == null || entity.reference() || !entity.keyIsIdentifier()) {
      throw new IllegalArgumentException("lock(" + type.getSimpleName() + ".class, ...) routes each id as a shard"
          + " key, so it needs an entity whose id is its shard key; " + type.getSimpleName()
          + (entity == null ? " is not a sharded entity of this persistence unit"
              : entity.reference() ? " is a @ReferenceTable"
              : "'s shard key is " + entity.keyAttribute() + ", not its id")
          + ". Lock such rows inside tx.on(key, s -> s.find(" + type.getSimpleName()
          + ".class, id, LockModeType.PESSIMISTIC_WRITE)), in ascending key order.");
    }
    Map<Comparable<Object>, Object> byOrder = new TreeMap<>();
    for (Object id : ids) {
      byOrder.putIfAbsent(orderKey(id, ids), id);
    }
    Map.Entry<Comparable<Object>, Class<?>> highest = locked.isEmpty() ? null : locked.lastEntry();
    for (Comparable<Object> key : byOrder.keySet()) {
      if (highest != null && !locked.containsKey(key) && key.compareTo(highest.getKey()) < 0) {
        throw new IllegalStateException("lock(" + type.getSimpleName() + ".class, " + byOrder.get(key) + ") comes after"
            + " this transaction already locked id " + highest.getKey() + ": rows are locked in ascending id order"
            + " across the whole transaction, so that two transactions never wait for each other across shards."
            + " Lock every row the work changes in one call, first. Nothing was locked by this call.");
      }
    }
    Map<Comparable<Object>, T> found = new HashMap<>();
    List<Object> missing = new ArrayList<>();
    for (Map.Entry<Comparable<Object>, Object> next : byOrder.entrySet()) {
      Object id = next.getValue();
      T row = delegate.from(id, session -> lockOne(session, type, id));
      if (row == null) {
        missing.add(id);
      } else {
        found.put(next.getKey(), row);
        locked.put(next.getKey(), type);
      }
    }
    if (!missing.isEmpty()) {
      throw new EntityNotFoundException("No " + type.getSimpleName() + " with id " + (missing.size() == 1
          ? missing.get(0) : "in " + missing) + " to lock: lock() reads rows that exist. The transaction is rolled"
          + " back when this exception leaves the work.");
    }
    List<T> result = new ArrayList<>(ids.length);
    for (Object id : ids) {
      result.add(found.get(orderKey(id, ids)));
    }
    return result;
  }

  /** Locks one row; an entity the session holds already is read again under the lock. */
  private static <T> T lockOne(Session session, Class<T> type, Object id) {
    SharedSessionContractImplementor implementor = session.unwrap(SharedSessionContractImplementor.class);
    EntityPersister persister = implementor.getFactory().getMappingMetamodel().getEntityDescriptor(type);
    Object held = implementor.getPersistenceContextInternal().getEntity(implementor.generateEntityKey(id, persister));
    if (held != null) {
      session.refresh(held, LockModeType.PESSIMISTIC_WRITE);
      return type.cast(held);
    }
    return session.find(type, id, LockModeType.PESSIMISTIC_WRITE);
  }

  /** An id as it sorts in the global order: integral numbers by value, text and UUIDs by their own order. */
  @SuppressWarnings("unchecked")
  private static Comparable<Object> orderKey(Object id, Object[] all) {
    Object key;
    if (id instanceof Long || id instanceof Integer || id instanceof Short) {
      key = ((Number) id).longValue();
    } else if (id instanceof String || id instanceof UUID) {
      key = id;
    } else {
      throw new IllegalArgumentException("lock() takes shard key ids (long, int, short, String or UUID); got "
          + (id == null ? "null" : id.getClass().getName() + " " + id));
    }
    for (Object other : all) {
      boolean sameKind = other instanceof Number == key instanceof Long
          && other instanceof String == key instanceof String && other instanceof UUID == key instanceof UUID;
      if (!sameKind) {
        throw new IllegalArgumentException("lock() takes ids of one kind, to order them; got " + id + " and "
            + other);
      }
    }
    return (Comparable<Object>) key;
  }
}
