package io.shardwise.hibernate.wiring.internal;

import static io.shardwise.hibernate.internal.PersistentAttributes.indexOf;

import io.shardwise.hibernate.ShardKeyPathException;
import io.shardwise.hibernate.internal.KeyPath;
import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.ShardingModel;
import java.util.ArrayList;
import java.util.List;
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
 * at the end of the path, and refuses a key that disagrees with it. With several paths
 * ({@code via = {"client.realm", "clientScope.realm"}}) the first that is set gives the key, and
 * every other that is set must give the same. Registered in front of the
 * write guard, which then checks the filled key like any other: it must be set and route to the
 * session's shard.
 *
 * <p>When: on {@code persist} and {@code merge} (also when they cascade), and again just before the
 * row's INSERT, a backstop for an insert that no persist or merge announced. Hibernate inserts the
 * state taken at persist, so a key changed after it reaches the guard as a changed key. Before an
 * UPDATE only when a path's first association changed: a hop further along belongs to the next
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
    List<KeyPath> paths = sharding.get().keyPaths(persister.getEntityName());
    if (paths.isEmpty()) {
      return false;
    }
    ShardedEntity model = sharding.get().byEntityName(persister.getEntityName());
    int index = indexOf(persister, model.keyAttribute());
    Object stored = event.getState()[index];
    Found expected = keyAlong(model, paths, event.getEntity(), event.getSession(), stored == null, true, null, "insert");
    if (stored == null) {
      Object key = expected == null ? null : expected.key();
      event.getState()[index] = key;
      persister.setValue(event.getEntity(), index, key);
    } else if (expected != null && !Objects.equals(stored, expected.key())) {
      throw mismatch(model, expected.path(), stored, expected.key(), "insert");
    }
    return false;
  }

  @Override
  public boolean onPreUpdate(PreUpdateEvent event) {
    EntityPersister persister = event.getPersister();
    List<KeyPath> paths = sharding.get().keyPaths(persister.getEntityName());
    if (paths.isEmpty() || paths.get(0).listedIn() != null || event.getOldState() == null
        || !aFirstHopChanged(persister, paths, event.getOldState(), event.getState())) {
      return false; // a collection's entity has no hop of its own that could change
    }
    ShardedEntity model = sharding.get().byEntityName(persister.getEntityName());
    Object stored = event.getState()[indexOf(persister, model.keyAttribute())];
    Found expected = keyAlong(model, paths, event.getEntity(), event.getSession(), false, false, null, "update");
    if (stored != null && expected != null && !Objects.equals(stored, expected.key())) {
      throw mismatch(model, expected.path(), stored, expected.key(), "update");
    }
    return false;
  }

  /** Whether the first association of any path points elsewhere than when the row was loaded. */
  private static boolean aFirstHopChanged(EntityPersister persister, List<KeyPath> paths, Object[] old, Object[] now) {
    for (KeyPath path : paths) {
      int firstHop = indexOf(persister, path.hops().get(0));
      if (old[firstHop] != now[firstHop]) {
        return true;
      }
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
    List<KeyPath> paths = model == null ? List.of() : current.keyPaths(model.entityName());
    if (paths.isEmpty()) {
      return;
    }
    EntityPersister persister = session.getEntityPersister(model.entityName(), target);
    Object stored = persister.getPropertyValue(target, model.keyAttribute());
    Found expected = keyAlong(model, paths, target, session, stored == null, true, merging, op);
    if (stored == null) {
      persister.setValue(target, indexOf(persister, model.keyAttribute()), expected == null ? null : expected.key());
    } else if (expected != null && !Objects.equals(stored, expected.key())) {
      throw mismatch(model, expected.path(), stored, expected.key(), op);
    }
  }

  /** The key a path leads to, and that path. */
  private record Found(KeyPath path, Object key) {}

  /** What {@link #keyThrough} answers for a path with a null hop, told apart from an end entity without a key. */
  private static final Object NULL_HOP = new Object();

  /**
   * The key along the first of the paths that leads to one; every other path that leads to a key
   * must lead to the same, else the row is refused. Null when none leads to a key; refused when
   * {@code required} and {@code refuseUnset} and every path has a null hop. {@code required} also
   * lets a hop be loaded (the key must be filled); {@code merging} is the merge under way, or null.
   */
  private Found keyAlong(ShardedEntity model, List<KeyPath> paths, Object entity,
      SharedSessionContractImplementor session, boolean required, boolean refuseUnset, MergeContext merging,
      String op) {
    Found found = null;
    boolean everyHopNull = true;
    for (KeyPath path : paths) {
      Object key = keyThrough(model, path, entity, session, required, refuseUnset && paths.size() == 1, merging);
      everyHopNull &= key == NULL_HOP;
      if (key == null || key == NULL_HOP) {
        continue;
      }
      if (found == null) {
        found = new Found(path, key);
      } else if (!Objects.equals(found.key(), key)) {
        throw conflict(model, paths, found, new Found(path, key), op);
      }
    }
    if (found == null && everyHopNull && required && refuseUnset) {
      throw unset(model, paths, entity, session);
    }
    return found;
  }

  /**
   * The shard key at the end of the path from {@code entity}: the end entity's key, or, when that is
   * not set yet and the end entity has paths of its own, the key along those. {@link #NULL_HOP} when
   * a hop is null; null when the end has no key, or when a hop cannot be loaded and {@code required}
   * is false. {@code refuseUnset}: whether the end entity's own paths may refuse a row they cannot
   * fill (only when this path is the row's one path, so that no other path could fill it).
   */
  private Object keyThrough(ShardedEntity model, KeyPath path, Object entity, SharedSessionContractImplementor session,
      boolean required, boolean refuseUnset, MergeContext merging) {
    if (path.listedIn() != null) {
      return keyOfListingOwner(model, path, entity, session, required, refuseUnset, merging);
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
        return NULL_HOP;
      }
    }
    ShardingModel sharded = sharding.get();
    ShardedEntity end = sharded.byEntityName(path.endEntity());
    if (!required && !end.keyIsIdentifier() && unloadable(current, session)) {
      return null;
    }
    Object key = keyOf(end, current, session);
    List<KeyPath> further = sharded.keyPaths(end.entityName());
    if (key == null && !further.isEmpty()) {
      Found along = keyAlong(end, further, unproxied(current), session, required, refuseUnset, merging, "store");
      key = along == null ? null : along.key();
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
      SharedSessionContractImplementor session, boolean required, boolean refuseUnset, MergeContext merging) {
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
      List<KeyPath> further = sharding.get().keyPaths(end.entityName());
      if (key != null || further.isEmpty()) {
        return key;
      }
      Found along = keyAlong(end, further, unproxied(owner), session, required, refuseUnset, merging, "store");
      return along == null ? null : along.key();
    }
    return NULL_HOP;
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

  /** Every path has a null hop (or no collection holds the row): nothing can fill its null key. */
  private ShardKeyPathException unset(ShardedEntity model, List<KeyPath> paths, Object entity,
      SharedSessionContractImplementor session) {
    String key = model.simpleName() + "." + model.keyAttribute();
    KeyPath only = paths.get(0);
    if (only.listedIn() != null) {
      return new ShardKeyPathException("[ShardKeyPathNull] Cannot store " + model.simpleName() + ": its shard key "
          + key + " is null and is taken from the " + only.path() + " that holds it (@CoLocated(listedIn = \""
          + only.listedIn() + "\")), but no " + only.path() + " in this session holds it. Add it to that collection"
          + " of an entity of this session (or set the key) before persisting. Nothing was written.");
    }
    List<String> nullHops = new ArrayList<>();
    for (KeyPath path : paths) {
      nullHops.add(nullHop(model, path, entity, session));
    }
    if (paths.size() == 1) {
      return new ShardKeyPathException("[ShardKeyPathNull] Cannot store " + model.simpleName() + ": its shard key "
          + key + " is null and is taken from @CoLocated(via = \"" + only.path() + "\"), but " + nullHops.get(0)
          + " is null. Set " + nullHops.get(0) + " (or the key itself) before persisting. Nothing was written.");
    }
    return new ShardKeyPathException("[ShardKeyPathNull] Cannot store " + model.simpleName() + ": its shard key "
        + key + " is null and is taken from the first path of @CoLocated(via = " + declared(paths)
        + ") that is set, but " + String.join(" and ", nullHops) + " are null. Set the association of the parent "
        + model.simpleName() + " belongs to (or the key itself) before persisting. Nothing was written.");
  }

  /** The first null hop along a via path, as {@code Visit.pet.owner}. */
  private static String nullHop(ShardedEntity model, KeyPath path, Object entity,
      SharedSessionContractImplementor session) {
    Object current = entity;
    String currentName = model.entityName();
    for (int i = 0; i < path.hops().size(); i++) {
      Object owner = unproxied(current);
      current = session.getEntityPersister(currentName, owner).getPropertyValue(owner, path.hops().get(i));
      currentName = path.hopEntities().get(i);
      if (current == null) {
        return model.simpleName() + "." + String.join(".", path.hops().subList(0, i + 1));
      }
    }
    return model.simpleName() + "." + path.path() + "'s own path"; // the end entity's paths stopped at a null hop
  }

  /** Two paths that are both set lead to different keys: the row cannot belong to both shards. */
  private static ShardKeyPathException conflict(ShardedEntity model, List<KeyPath> paths, Found first, Found other,
      String op) {
    String name = model.simpleName();
    return new ShardKeyPathException("[ShardKeyPathConflict] Cannot " + op + " " + name + ": " + name + "."
        + first.path().path() + " has the shard key " + first.key() + " but " + name + "." + other.path().path()
        + " has the shard key " + other.key() + " (@CoLocated(via = " + declared(paths) + ")), and a row lives on"
        + " one shard. Set only the association of the parent " + name + " belongs to, or point both at parents"
        + " with the same key. Nothing was written.");
  }

  /** The via paths as declared: {@code {"client.realm", "clientScope.realm"}}. */
  private static String declared(List<KeyPath> paths) {
    StringBuilder out = new StringBuilder("{");
    for (KeyPath path : paths) {
      out.append(out.length() > 1 ? ", \"" : "\"").append(path.path()).append('"');
    }
    return out.append('}').toString();
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
