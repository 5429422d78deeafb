package io.shardwise.hibernate.wiring.internal;

import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import static io.shardwise.hibernate.internal.PersistentAttributes.indexOf;

import io.shardwise.hibernate.NoShardSelectedException;
import io.shardwise.hibernate.ShardKeyException;
import io.shardwise.hibernate.id.NoMatchingIdException;
import io.shardwise.hibernate.id.SnowflakeGenerator;
import io.shardwise.hibernate.internal.ShardSessions;
import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.ShardingModel;
import io.shardwise.hibernate.internal.query.ShardKeyValues;
import io.shardwise.hibernate.readwrite.internal.ReadYourWritesTracking;
import io.shardwise.hibernate.resharding.BucketMovedException;
import io.shardwise.hibernate.routing.internal.NewRootPlacement;
import io.shardwise.hibernate.routing.internal.Router;
import io.shardwise.hibernate.transaction.ReferenceTableWriteException;
import io.shardwise.hibernate.transaction.internal.ReferenceWrites;
import java.util.Objects;
import java.util.function.Supplier;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.event.spi.DeleteContext;
import org.hibernate.event.spi.DeleteEvent;
import org.hibernate.event.spi.DeleteEventListener;
import org.hibernate.event.spi.LoadEvent;
import org.hibernate.event.spi.LoadEventListener;
import org.hibernate.event.spi.MergeContext;
import org.hibernate.event.spi.MergeEvent;
import org.hibernate.event.spi.MergeEventListener;
import org.hibernate.event.spi.PersistContext;
import org.hibernate.event.spi.PersistEvent;
import org.hibernate.event.spi.PersistEventListener;
import org.hibernate.event.spi.PreDeleteEvent;
import org.hibernate.event.spi.PreDeleteEventListener;
import org.hibernate.event.spi.PreInsertEvent;
import org.hibernate.event.spi.PreInsertEventListener;
import org.hibernate.event.spi.PreUpdateEvent;
import org.hibernate.event.spi.PreUpdateEventListener;
import org.hibernate.persister.entity.EntityPersister;
import org.hibernate.proxy.HibernateProxy;

/**
 * Refuses writes that would put a row on the wrong shard, before Hibernate sends any SQL for them:
 * a null shard key, a key owned by another shard than the session's, a changed key, and writes to
 * reference tables through a one-shard session. persist/merge/remove are checked when called;
 * inserts and updates reached by cascade or dirty checking are checked just before their SQL. A
 * session of no shard may write reference tables: its writes are held back and made on every
 * shard at commit ({@link NoShardReferenceWrites}).
 *
 * <p>Refuses loads that could only answer "not found": {@code find}, {@code getReference} and
 * {@code byId} of an entity whose id is its shard key, with an id owned by another shard than the
 * session's (for entities whose id is not their key, the key of a row is unknown until it is read).
 */
final class ShardGuard implements PersistEventListener, MergeEventListener, DeleteEventListener,
    PreInsertEventListener, PreUpdateEventListener, PreDeleteEventListener, LoadEventListener {
  private static final long serialVersionUID = 1L;

  private final transient Router router;
  private final transient Supplier<ShardingModel> sharding;
  private final transient ShardKeyValues keyValues;
  private final transient NoShardReferenceWrites noShardReferenceWrites;
  private final transient ShardwiseMetrics metrics;
  private final transient NewRootPlacement newRoots;

  ShardGuard(Router router, Supplier<ShardingModel> sharding, ShardKeyValues keyValues, ShardwiseMetrics metrics,
      NoShardReferenceWrites noShardReferenceWrites, NewRootPlacement newRoots) {
    this.newRoots = newRoots;
    this.metrics = metrics;
    this.router = router;
    this.sharding = sharding;
    this.keyValues = keyValues;
    this.noShardReferenceWrites = noShardReferenceWrites;
  }

  // --- loads by id --------------------------------------------------------------------------

  @Override
  public void onLoad(LoadEvent event, LoadType loadType) {
    ShardedEntity model = sharding.get().byEntityName(event.getEntityClassName());
    if (model != null && model.keyIsIdentifier() && !model.reference()) {
      keyValues.requireLoadKey(model, event.getEntityId(), event.getSession());
    }
  }

  // --- operations, checked when the application calls them ------------------------------

  @Override
  public void onPersist(PersistEvent event) {
    checkWrite(event.getObject(), event.getEntityName(), event.getSession(), "persist");
  }

  @Override
  public void onPersist(PersistEvent event, PersistContext context) {
    onPersist(event);
  }

  @Override
  public void onMerge(MergeEvent event) {
    checkWrite(event.getOriginal(), event.getEntityName(), event.getSession(), "merge");
  }

  @Override
  public void onMerge(MergeEvent event, MergeContext context) {
    onMerge(event);
  }

  @Override
  public void onDelete(DeleteEvent event) {
    Object entity = event.getObject();
    ShardedEntity model = modelOf(entity, event.getEntityName());
    if (model != null && model.reference() && !referenceWriteAllowed(event.getSession())) {
      throw referenceWrite(model, "remove", event.getSession());
    }
  }

  @Override
  public void onDelete(DeleteEvent event, DeleteContext context) {
    onDelete(event);
  }

  // --- SQL about to be sent: the backstop for cascades and dirty checking -----------------

  @Override
  public boolean onPreInsert(PreInsertEvent event) {
    ShardedEntity model = sharding.get().byEntityName(event.getPersister().getEntityName());
    if (model == null) {
      return false;
    }
    if (model.reference()) {
      if (ReferenceWrites.allowed()) {
        return false;
      }
      if (noShard(event.getSession())) {
        noShardReferenceWrites.save(event.getSession(), model.entityName(), event.getId(), event.getEntity());
        return true; // not on this session's replica: on every shard, at commit
      }
      throw referenceWrite(model, "insert", event.getSession());
    }
    Object key = model.keyIsIdentifier() ? event.getId()
        : event.getState()[indexOf(event.getPersister(), model.keyAttribute())];
    checkKey(model, key, event.getSession(), "insert");
    ReadYourWritesTracking.wrote(model.readYourWrites());
    return false;
  }

  @Override
  public boolean onPreUpdate(PreUpdateEvent event) {
    ShardedEntity model = sharding.get().byEntityName(event.getPersister().getEntityName());
    if (model == null) {
      return false;
    }
    if (model.reference()) {
      if (ReferenceWrites.allowed()) {
        return false;
      }
      if (noShard(event.getSession())) {
        noShardReferenceWrites.save(event.getSession(), model.entityName(), event.getId(), event.getEntity());
        return true;
      }
      throw referenceWrite(model, "update", event.getSession());
    }
    if (!model.keyIsIdentifier() && event.getOldState() != null) {
      int index = indexOf(event.getPersister(), model.keyAttribute());
      Object before = event.getOldState()[index];
      Object after = event.getState()[index];
      if (!Objects.equals(before, after)) {
        throw new ShardKeyException("[ShardKeyChanged] " + model.simpleName() + "." + model.keyAttribute()
            + " changed from " + before + " to " + after + " (id " + event.getId() + "). A shard key is immutable:"
            + " the row lives on the shard of its key. Create a new " + model.simpleName()
            + " under the new key and remove the old one instead. Nothing was written.");
      }
    }
    ReadYourWritesTracking.wrote(model.readYourWrites());
    return false;
  }

  @Override
  public boolean onPreDelete(PreDeleteEvent event) {
    ShardedEntity model = sharding.get().byEntityName(event.getPersister().getEntityName());
    if (model != null && model.reference() && !ReferenceWrites.allowed() && noShard(event.getSession())) {
      noShardReferenceWrites.remove(event.getSession(), model.entityName(), event.getId(), event.getEntity());
      return true;
    }
    if (model != null && !model.reference()) {
      ReadYourWritesTracking.wrote(model.readYourWrites());
    }
    return false;
  }

  // ---------------------------------------------------------------------------------------

  private void checkWrite(Object entity, String entityName, SharedSessionContractImplementor session, String op) {
    if (entity == null) {
      return;
    }
    ShardedEntity model = modelOf(entity, entityName);
    if (model == null) {
      return;
    }
    if (model.reference()) {
      if (referenceWriteAllowed(session)) {
        return;
      }
      throw referenceWrite(model, op, session);
    }
    EntityPersister persister = session.getEntityPersister(model.entityName(), entity);
    Object target = entity instanceof HibernateProxy proxy ? proxy.getHibernateLazyInitializer().getImplementation()
        : entity;
    Object key = model.keyIsIdentifier() ? persister.getIdentifier(target, session)
        : persister.getPropertyValue(target, model.keyAttribute());
    boolean newRoot = model.keyIsIdentifier() && (op.equals("persist") || op.equals("merge"))
        && (persister.getGenerator() instanceof SnowflakeGenerator && SnowflakeGenerator.isUnset(key)
            || persister.getGenerator() instanceof ClusterIdGenerator && ClusterIdGenerator.isUnset(key));
    if (newRoot && noShard(session)) {
      keyValues.bind(session, newRoots.next(), op + " a new " + model.simpleName());
    }
    if (newRoot && op.equals("persist")) {
      String shard = ShardSessions.shardOf(session);
      key = persister.getGenerator() instanceof SnowflakeGenerator ids ? routedId(model, ids, shard)
          : ((ClusterIdGenerator) persister.getGenerator()).nextRouted(shard);
      persister.setIdentifier(target, key, session);
    }
    checkKey(model, key, session, op);
  }

  /**
   * A new root (its shard key is its {@code @SnowflakeId}) persisted without an id gets one that
   * routes to the session's shard: ids are drawn until one does, about as many draws as there are
   * shards of equal weight. The bound makes a miss practically impossible for a shard that owns one
   * bucket of 1024 ({@code (1 - 1/1024)^65536}, about {@code e^-64}).
   */
  private Long routedId(ShardedEntity model, SnowflakeGenerator ids, String shard) {
    int maxDraws = maxDraws(router);
    try {
      return ids.nextIdMatching(candidate -> shard.equals(router.shardFor(candidate)), maxDraws);
    } catch (NoMatchingIdException noneRoutesHere) {
      throw new ShardKeyException("[NoIdForShard] Cannot persist " + model.simpleName() + " in a session on shard '"
          + shard + "': none of " + maxDraws + " Snowflake ids drawn for " + model.simpleName() + "."
          + model.keyAttribute() + " routes to that shard under shard map version " + router.map().version()
          + ". New roots need a shard that owns buckets: open the session with shards.forNewRoot("
          + model.simpleName() + ".class), which picks such a shard. Nothing was written.", noneRoutesHere);
    }
  }

  /** How many candidate ids a new root may draw before {@code [NoIdForShard]}: 64 per bucket, within 4096..2^20. */
  static int maxDraws(Router router) {
    return Math.min(1 << 20, Math.max(4096, 64 * router.map().bucketCount()));
  }

  private void checkKey(ShardedEntity model, Object key, SharedSessionContractImplementor session, String op) {
    String sessionShard = ShardSessions.shardOf(session);
    if (ShardSessions.NO_SHARD.equals(sessionShard) && key != null) {
      sessionShard = router.shardFor(key);
      keyValues.bind(session, sessionShard, op + " " + model.simpleName() + " with " + model.keyAttribute() + " = "
          + key);
      return;
    }
    if (key == null) {
      metrics.refused(ShardwiseMetrics.Refusal.MISSING_KEY);
      throw new ShardKeyException("[ShardKeyNull] Cannot " + op + " " + model.simpleName() + ": its shard key "
          + model.simpleName() + "." + model.keyAttribute() + " is null. Set it before " + op
          + " — it decides the shard the row lives on. Nothing was written.");
    }
    String owner = router.shardFor(key);
    if (!owner.equals(sessionShard) && router.ownedBeforeLastChange(key, sessionShard)) {
      throw new BucketMovedException("Cannot " + op + " " + model.simpleName() + " with " + model.keyAttribute()
          + " = " + key + " in this session on shard '" + sessionShard + "': an online move gave the key's bucket to"
          + " shard '" + owner + "' (shard map version " + router.map().version() + ") after the session opened."
          + " Nothing was written; retry the unit of work through shards.forKey(" + key + ").", -1, owner,
          router.map().version(), null);
    }
    if (!owner.equals(sessionShard)) {
      metrics.refused(ShardwiseMetrics.Refusal.WRONG_SHARD);
      throw new ShardKeyException("[ShardKeyMismatch] Cannot " + op + " " + model.simpleName() + " with "
          + model.keyAttribute() + " = " + key + " in a session on shard '" + sessionShard + "': that key belongs to"
          + " shard '" + owner + "'. Open the session by its key — shards.forKey(" + key
          + ").inTransaction(...) — so that the row lands where reads will look for it. Nothing was written.");
    }
  }

  /** Inside the atomic reference-table path, or in a session of no shard (whose writes take that path at commit). */
  private static boolean referenceWriteAllowed(SharedSessionContractImplementor session) {
    return ReferenceWrites.allowed() || noShard(session);
  }

  /** A session opened without a shard that has not bound to one yet. */
  private static boolean noShard(SharedSessionContractImplementor session) {
    return ShardSessions.NO_SHARD.equals(ShardSessions.shardOf(session));
  }

  private ReferenceTableWriteException referenceWrite(ShardedEntity model, String op,
      SharedSessionContractImplementor session) {
    return new ReferenceTableWriteException("[ReferenceTableWrite] Cannot " + op + " " + model.simpleName()
        + " in a session on shard '" + ShardSessions.shardOf(session) + "': it is a @ReferenceTable, copied to every"
        + " shard, and a change through one shard would leave the copies different. Write reference tables through"
        + " shards.referenceTables().inTransaction(...), which changes every shard in one atomic transaction. Nothing was written.");
  }

  private ShardedEntity modelOf(Object entity, String entityName) {
    ShardingModel current = sharding.get();
    if (entityName != null) {
      ShardedEntity byName = current.byEntityName(entityName);
      if (byName != null) {
        return byName;
      }
    }
    Class<?> type = entity instanceof HibernateProxy proxy ? proxy.getHibernateLazyInitializer().getPersistentClass()
        : entity.getClass();
    return current.byClass(type);
  }
}
