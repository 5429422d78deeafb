package io.shardwise.hibernate.wiring.internal;

import static io.shardwise.hibernate.internal.PersistentAttributes.indexOf;

import io.shardwise.hibernate.ShardKeyPathException;
import io.shardwise.hibernate.internal.KeyPath;
import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.ShardingModel;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.hibernate.Hibernate;
import org.hibernate.engine.spi.EntityEntry;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.event.spi.MergeContext;
import org.hibernate.event.spi.MergeEvent;
import org.hibernate.event.spi.MergeEventListener;
import org.hibernate.event.spi.PersistContext;
import org.hibernate.event.spi.PersistEvent;
import org.hibernate.event.spi.PersistEventListener;
import org.hibernate.event.spi.PreInsertEvent;
import org.hibernate.event.spi.PreInsertEventListener;
import org.hibernate.event.spi.PreUpdateEvent;
import org.hibernate.event.spi.PreUpdateEventListener;
import org.hibernate.persister.entity.EntityPersister;
import org.hibernate.proxy.HibernateProxy;
import org.hibernate.proxy.LazyInitializer;
import org.hibernate.type.CollectionType;

/**
 * Fills the shard key of an entity declared {@code @CoLocated(via = "pet.owner")} from the entity
 * at the end of the path, and refuses a key that disagrees with it. Registered in front of the
 * write guard, which then checks the filled key like any other: it must be set and route to the
 * session's shard.
 *
 * <p>When: on {@code persist} and {@code merge} (also when they cascade), and again just before the
 * row's INSERT, a backstop for an insert that no persist or merge announced. Hibernate inserts the
 * state taken at persist, so a key changed after it reaches the guard as a changed key. Before an
 * UPDATE only when the path's first association changed: a hop further along belongs to the next
 * entity's own check.
 */
final class KeyPathFiller implements PersistEventListener, MergeEventListener, PreInsertEventListener,
    PreUpdateEventListener {
  private static final long serialVersionUID = 1L;

  private final transient Supplier<ShardingModel> sharding;

  KeyPathFiller(Supplier<ShardingModel> sharding) {
    this.sharding = sharding;
  }

  @Override
  public void onPersist(PersistEvent event) {
    fill(event.getObject(), event.getEntityName(), event.getSession(), "persist", null);
  }

  @Override
  public void onPersist(PersistEvent event, PersistContext context) {
    onPersist(event);
  }

  @Override
  public void onMerge(MergeEvent event) {
    fill(event.getOriginal(), event.getEntityName(), event.getSession(), "merge", null);
  }

  @Override
  public void onMerge(MergeEvent event, MergeContext context) {
    fill(event.getOriginal(), event.getEntityName(), event.getSession(), "merge", context);
  }

  @Override
  public boolean onPreInsert(PreInsertEvent event) {
    EntityPersister persister = event.getPersister();
    KeyPath path = sharding.get().keyPath(persister.getEntityName());
    if (path == null) {
      return false;
    }
    ShardedEntity model = sharding.get().byEntityName(persister.getEntityName());
    int index = indexOf(persister, model.keyAttribute());
    Object stored = event.getState()[index];
    Object expected = keyThrough(model, path, event.getEntity(), event.getSession(), stored == null, null);
    if (stored == null) {
      event.getState()[index] = expected;
      persister.setValue(event.getEntity(), index, expected);
    } else if (expected != null && !Objects.equals(stored, expected)) {
      throw mismatch(model, path, stored, expected, "insert");
    }
    return false;
  }

  @Override
  public boolean onPreUpdate(PreUpdateEvent event) {
    EntityPersister persister = event.getPersister();
    KeyPath path = sharding.get().keyPath(persister.getEntityName());
    if (path == null || path.listedIn() != null || event.getOldState() == null) {
      return false; // a collection's entity has no hop of its own that could change
    }
    int firstHop = indexOf(persister, path.hops().get(0));
    if (event.getOldState()[firstHop] == event.getState()[firstHop]) {
      return false;
    }
    ShardedEntity model = sharding.get().byEntityName(persister.getEntityName());
    Object stored = event.getState()[indexOf(persister, model.keyAttribute())];
    Object expected = keyThrough(model, path, event.getEntity(), event.getSession(), false, null);
    if (stored != null && expected != null && !Objects.equals(stored, expected)) {
      throw mismatch(model, path, stored, expected, "update");
    }
    return false;
  }

  private void fill(Object entity, String entityName, SharedSessionContractImplementor session, String op,
      MergeContext merging) {
    if (entity == null) {
      return;
    }
    Object target = unproxied(entity);
    ShardingModel current = sharding.get();
    ShardedEntity model = entityName != null ? current.byEntityName(entityName) : null;
    if (model == null) {
      model = current.byClass(target.getClass());
    }
    KeyPath path = model == null ? null : current.keyPath(model.entityName());
    if (path == null) {
      return;
    }
    EntityPersister persister = session.getEntityPersister(model.entityName(), target);
    Object stored = persister.getPropertyValue(target, model.keyAttribute());
    Object expected = keyThrough(model, path, target, session, stored == null, merging);
    if (stored == null) {
      persister.setValue(target, indexOf(persister, model.keyAttribute()), expected);
    } else if (expected != null && !Objects.equals(stored, expected)) {
      throw mismatch(model, path, stored, expected, op);
    }
  }

  /**
   * The shard key at the end of the path from {@code entity}: the end entity's key, or, when that is
   * not set yet and the end entity has a path of its own, the key along that one. Null when a hop is
   * null and {@code required} is false; refused when it is true. {@code merging} is the merge under
   * way, or null.
   */
  private Object keyThrough(ShardedEntity model, KeyPath path, Object entity, SharedSessionContractImplementor session,
      boolean required, MergeContext merging) {
    if (path.listedIn() != null) {
      return keyOfListingOwner(model, path, entity, session, required, merging);
    }
    Object current = entity;
    String currentName = model.entityName();
    for (int i = 0; i < path.hops().size(); i++) {
      if (!required && unloadable(current, session)) {
        return null; // a detached entity merged with an unloaded hop: its managed copy is checked before its SQL
      }
      Object owner = unproxied(current);
      current = session.getEntityPersister(currentName, owner).getPropertyValue(owner, path.hops().get(i));
      currentName = path.hopEntities().get(i);
      if (current == null) {
        if (!required) {
          return null;
        }
        String nullHop = model.simpleName() + "." + String.join(".", path.hops().subList(0, i + 1));
        throw new ShardKeyPathException("[ShardKeyPathNull] Cannot store " + model.simpleName() + ": its shard key "
            + model.simpleName() + "." + model.keyAttribute() + " is null and is taken from @CoLocated(via = \""
            + path.path() + "\"), but " + nullHop + " is null. Set " + nullHop + " (or the key itself) before"
            + " persisting. Nothing was written.");
      }
    }
    ShardingModel sharded = sharding.get();
    ShardedEntity end = sharded.byEntityName(path.endEntity());
    if (!required && !end.keyIsIdentifier() && unloadable(current, session)) {
      return null;
    }
    Object key = keyOf(end, current, session);
    KeyPath further = sharded.keyPath(end.entityName());
    if (key == null && further != null) {
      key = keyThrough(end, further, unproxied(current), session, required, merging);
    }
    return key;
  }

  /**
   * The key of the entity whose collection ({@code listedIn}) holds {@code entity}: an entity this
   * merge copies (a detached root merged with its children: its copy may hold the key, e.g. an id
   * generated by the merge, and its original a key this merge just filled), else an entity of the
   * session. Not Hibernate's own owner lookup: during a merge's cascade it answers from the detached
   * parent, which has no entry in the session, and fails.
   */
  private Object keyOfListingOwner(ShardedEntity model, KeyPath path, Object entity,
      SharedSessionContractImplementor session, boolean required, MergeContext merging) {
    ShardedEntity end = sharding.get().byEntityName(path.endEntity());
    var metamodel = session.getFactory().getMappingMetamodel();
    EntityPersister owners = metamodel.getEntityDescriptor(end.entityName());
    CollectionType listType = metamodel.getCollectionDescriptor(end.entityName() + "." + path.listedIn())
        .getCollectionType();
    Object owner = null;
    Object ownerCopy = null;
    if (merging != null) {
      for (Map.Entry<Object, Object> copied : merging.entrySet()) {
        if (lists(owners, listType, path.listedIn(), copied.getKey(), entity, session)) {
          owner = copied.getKey();
          ownerCopy = copied.getValue();
          break;
        }
      }
    }
    if (owner == null) {
      // reentrantSafeEntityEntries, not 7.4's reentrantSafeManagedEntities: Spring Boot 4.0 brings Hibernate 7.2
      for (Map.Entry<Object, EntityEntry> managed : session.getPersistenceContextInternal().reentrantSafeEntityEntries()) {
        if (lists(owners, listType, path.listedIn(), managed.getKey(), entity, session)) {
          owner = managed.getKey();
          ownerCopy = owner;
          break;
        }
      }
    }
    if (owner != null) {
      Object key = keyOf(end, owner, session);
      if (key == null) {
        key = keyOf(end, ownerCopy, session);
      }
      KeyPath further = sharding.get().keyPath(end.entityName());
      return key != null || further == null ? key
          : keyThrough(end, further, unproxied(owner), session, required, merging);
    }
    if (!required) {
      return null;
    }
    throw new ShardKeyPathException("[ShardKeyPathNull] Cannot store " + model.simpleName() + ": its shard key "
        + model.simpleName() + "." + model.keyAttribute() + " is null and is taken from the " + path.path()
        + " that holds it (@CoLocated(listedIn = \"" + path.listedIn() + "\")), but no " + path.path()
        + " in this session holds it. Add it to that collection of an entity of this session (or set the key)"
        + " before persisting. Nothing was written.");
  }

  /** Whether {@code candidate} is an {@code owners} entity whose loaded {@code listedIn} collection holds {@code child}. */
  private static boolean lists(EntityPersister owners, CollectionType listType, String listedIn, Object candidate,
      Object child, SharedSessionContractImplementor session) {
    if (!owners.getMappedClass().isInstance(candidate) || !Hibernate.isInitialized(candidate)) {
      return false;
    }
    Object owner = unproxied(candidate);
    Object list = owners.getPropertyValue(owner, listedIn);
    return list != null && Hibernate.isInitialized(list) && listType.contains(list, child, session);
  }

  /** An entity's own shard key; a proxy keyed by its id answers without being loaded. */
  private static Object keyOf(ShardedEntity end, Object entity, SharedSessionContractImplementor session) {
    if (entity instanceof HibernateProxy proxy && end.keyIsIdentifier()) {
      return proxy.getHibernateLazyInitializer().getInternalIdentifier();
    }
    Object target = unproxied(entity);
    EntityPersister persister = session.getEntityPersister(end.entityName(), target);
    return end.keyIsIdentifier() ? persister.getIdentifier(target, session)
        : persister.getPropertyValue(target, end.keyAttribute());
  }

  /** An unloaded proxy this session cannot load (detached, or of another session). */
  private static boolean unloadable(Object entity, SharedSessionContractImplementor session) {
    return entity instanceof HibernateProxy proxy && proxy.getHibernateLazyInitializer().isUninitialized()
        && proxy.getHibernateLazyInitializer().getSession() != session;
  }

  private static Object unproxied(Object entity) {
    if (entity instanceof HibernateProxy proxy) {
      LazyInitializer lazy = proxy.getHibernateLazyInitializer();
      return lazy.getImplementation();
    }
    return entity;
  }

  private static ShardKeyPathException mismatch(ShardedEntity model, KeyPath path, Object stored, Object expected,
      String op) {
    boolean listed = path.listedIn() != null;
    String source = listed ? "the " + path.path() + " that holds it" : model.simpleName() + "." + path.path();
    String declared = listed ? "listedIn = \"" + path.listedIn() + "\"" : "via = \"" + path.path() + "\"";
    String repoint = listed ? "hold it in the " + path.path() + " of an entity with the same key"
        : "point " + path.hops().get(0) + " at an entity with the same key";
    return new ShardKeyPathException("[ShardKeyPathMismatch] Cannot " + op + " " + model.simpleName() + ": "
        + model.simpleName() + "." + model.keyAttribute() + " is " + stored + " but " + source + " has the shard key "
        + expected + " (@CoLocated(" + declared + ")). A row lives on the shard of the entity it belongs to: leave "
        + model.keyAttribute() + " null to have it filled, or " + repoint + ". Nothing was written.");
  }
}
