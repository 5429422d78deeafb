package io.shardwise.hibernate.globalindex.internal;

import static io.shardwise.hibernate.internal.PersistentAttributes.indexOf;


import io.shardwise.annotations.GlobalIndex;
import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.ShardwiseException;
import io.shardwise.hibernate.globalindex.BackfillProgress;
import io.shardwise.hibernate.globalindex.GlobalIndexUniqueException;
import io.shardwise.hibernate.internal.PrimaryConnections;
import io.shardwise.hibernate.internal.ShardSessions;
import io.shardwise.hibernate.ShardwiseDdl;
import io.shardwise.hibernate.internal.jdbc.OwnObjects;
import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.ShardingModel;
import io.shardwise.hibernate.internal.query.QueryGuard;
import io.shardwise.hibernate.routing.internal.Router;
import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.hibernate.event.spi.PostCommitDeleteEventListener;
import org.hibernate.event.spi.PostCommitUpdateEventListener;
import org.hibernate.event.spi.PostDeleteEvent;
import org.hibernate.event.spi.PostUpdateEvent;
import org.hibernate.event.spi.PreInsertEvent;
import org.hibernate.event.spi.PreInsertEventListener;
import org.hibernate.event.spi.PreUpdateEvent;
import org.hibernate.event.spi.PreUpdateEventListener;
import org.hibernate.persister.entity.EntityPersister;

/**
 * Maintains and reads the {@link GlobalIndex} lookup tables of one session factory.
 *
 * <p>Each index is a table {@code shardwise.gidx_<entity>_<attribute>(value, shard_key,
 * entity_id)} present on every shard (named by {@link ShardwiseDdl#globalIndexTable}: never longer than
 * PostgreSQL's 63 bytes, never shared by two indexes, always schema-qualified and quoted); the rows for a value live on the shard that owns the value.
 * Write order is what keeps a committed entity findable: before Hibernate inserts or updates the
 * entity, its new index row is committed on the value's shard (its own short transaction); after the
 * entity's transaction commits, the row of the old value (update) or of the deleted entity is
 * removed. A transaction that fails in between leaves an extra row pointing at nothing, which reads
 * ignore because they verify every candidate on its owning shard.
 *
 * <p>Uniqueness: writers of one value serialise on a PostgreSQL advisory lock on the value's shard;
 * a row of another entity blocks the write when that entity still holds the value, or when the row
 * is younger than {@link #PENDING_SECONDS} (its transaction may not have committed yet). Older rows
 * whose entity no longer holds the value are stale and are replaced.
 */
public final class GlobalIndexes implements PreInsertEventListener, PreUpdateEventListener,
    PostCommitUpdateEventListener, PostCommitDeleteEventListener {
  private static final long serialVersionUID = 1L;
  /** How long a fresh index row of another entity counts as a write in progress. */
  static final int PENDING_SECONDS = 30;
  private static final int BATCH = 500;

  /** One {@code @GlobalIndex}. */
  record Index(ShardedEntity entity, String attribute, boolean unique, String table) {
    /** The table as SQL names it: schema-qualified and quoted, so no search_path can redirect it. */
    String sql() {
      return ShardwiseDdl.quoted(table);
    }
  }

  private final transient Router router;
  private final transient PrimaryConnections primaries;
  private final transient Supplier<ShardingModel> model;
  private transient volatile SessionFactory sessionFactory;
  private transient volatile Map<String, List<Index>> byEntity;
  private final transient Set<String> tablesReady = ConcurrentHashMap.newKeySet();
  private final transient boolean createTables;

  /**
   * @param model the session factory's sharding model, installed once its metadata is known
   * @param createTables {@code shardwise.ddl = create}: create a missing lookup table on first use;
   *     otherwise check it and fail with the SQL to run
   */
  public GlobalIndexes(Router router, PrimaryConnections primaries, Supplier<ShardingModel> model,
      boolean createTables) {
    this.createTables = createTables;
    this.router = router;
    this.primaries = primaries;
    this.model = model;
  }

  public void bind(SessionFactory sessionFactory) {
    this.sessionFactory = sessionFactory;
  }

  private Map<String, List<Index>> indexes() {
    Map<String, List<Index>> all = byEntity;
    if (all == null) {
      all = new ConcurrentHashMap<>();
      for (ShardedEntity entity : model.get().entities()) {
        for (Class<?> c = entity.javaType(); c != null && c != Object.class; c = c.getSuperclass()) {
          for (Field f : c.getDeclaredFields()) {
            GlobalIndex gi = f.getAnnotation(GlobalIndex.class);
            if (gi == null) {
              continue;
            }
            if (entity.reference() || f.getName().equals(entity.keyAttribute())) {
              throw new ShardingConfigurationException("[GlobalIndexMisplaced] " + entity.simpleName() + "."
                  + f.getName() + ": @GlobalIndex belongs on a non-key attribute of a sharded entity");
            }
            all.computeIfAbsent(entity.entityName(), k -> new ArrayList<>())
                .add(new Index(entity, f.getName(), gi.unique(), ShardwiseDdl.globalIndexTable(entity.entityName(),
                    entity.simpleName(), f.getName(), false)));
          }
        }
      }
      disambiguate(all);
      byEntity = all;
    }
    return all;
  }

  /** Indexes whose short names coincide (or only differ in case) get the hashed form of the name. */
  private static void disambiguate(Map<String, List<Index>> all) {
    Map<String, Integer> uses = new java.util.HashMap<>();
    all.values().forEach(list -> list.forEach(i -> uses.merge(i.table(), 1, Integer::sum)));
    all.values().forEach(list -> list.replaceAll(i -> uses.get(i.table()) == 1 ? i : new Index(i.entity(),
        i.attribute(), i.unique(), ShardwiseDdl.globalIndexTable(i.entity().entityName(), i.entity().simpleName(),
            i.attribute(), true))));
  }

  /**
   * Every lookup table with the type of the attribute it indexes (its rows live on the shard of
   * that value, like rows of a sharded table on the shard of their key), or null for a type that
   * is not a shard key type. An online move carries a lookup table's rows with their buckets.
   */
  public Map<String, io.shardwise.hibernate.routing.ShardKeyType> lookupTables() {
    Map<String, io.shardwise.hibernate.routing.ShardKeyType> out = new java.util.TreeMap<>();
    indexes().values().forEach(list -> list.forEach(i -> out.put(i.table(), io.shardwise.hibernate.routing.ShardKeyType
        .forJavaType(persister(i).getPropertyType(i.attribute()).getReturnedClass()))));
    return out;
  }

  Index index(Class<?> type, String attribute) {
    ShardedEntity entity = model.get().byClass(type);
    for (Index i : indexes().getOrDefault(entity.entityName(), List.of())) {
      if (i.attribute().equals(attribute)) {
        return i;
      }
    }
    throw new IllegalArgumentException(type.getSimpleName() + "." + attribute + " has no @GlobalIndex: annotate the"
        + " attribute, or query with shards.scatter()");
  }

  // ---- reads ---------------------------------------------------------------------------------

  /** The entities whose attribute holds {@code value}, each verified on its owning shard. */
  public <T> List<T> find(Class<T> type, String attribute, Object value) {
    Index index = index(type, attribute);
    List<String[]> candidates = new ArrayList<>();
    String shard = router.shardFor(value);
    sql(shard, index, c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT shard_key, entity_id FROM " + index.sql()
          + " WHERE value = ?")) {
        ps.setString(1, value.toString());
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            candidates.add(new String[] {rs.getString(1), rs.getString(2)});
          }
        }
      }
      return null;
    });
    List<T> found = new ArrayList<>();
    for (T entity : loadAll(type, index, candidates)) {
      if (Objects.equals(attributeOf(entity, index), value)) {
        found.add(entity);
      }
    }
    return found;
  }

  /**
   * The entities that still exist among {@code candidates} ({shard key, id} pairs), loaded with one
   * session per owning shard, in the order of the shards' first candidates.
   */
  private <T> List<T> loadAll(Class<T> type, Index index, List<String[]> candidates) {
    Map<String, List<Object>> idsByShard = new LinkedHashMap<>();
    for (String[] candidate : candidates) {
      String shard = router.shardFor(parse(candidate[0], keyClass(index)));
      idsByShard.computeIfAbsent(shard, k -> new ArrayList<>()).add(parse(candidate[1], idClass(index)));
    }
    List<T> loaded = new ArrayList<>();
    idsByShard.forEach((shard, ids) -> {
      try (Session s = ShardSessions.open(sessionFactory, shard, false)) {
        for (T entity : s.findMultiple(type, ids)) {
          if (entity != null) {
            loaded.add(entity);
          }
        }
      }
    });
    return loaded;
  }

  // ---- writes --------------------------------------------------------------------------------

  @Override
  public boolean onPreInsert(PreInsertEvent event) {
    for (Index index : indexes().getOrDefault(event.getPersister().getEntityName(), List.of())) {
      EntityPersister p = event.getPersister();
      Object value = event.getState()[indexOf(p, index.attribute())];
      if (value != null) {
        Object key = index.entity().keyIsIdentifier() ? event.getId()
            : event.getState()[indexOf(p, index.entity().keyAttribute())];
        put(index, value, key, event.getId());
      }
    }
    return false;
  }

  @Override
  public boolean onPreUpdate(PreUpdateEvent event) {
    for (Index index : indexes().getOrDefault(event.getPersister().getEntityName(), List.of())) {
      EntityPersister p = event.getPersister();
      int i = indexOf(p, index.attribute());
      Object now = event.getState()[i];
      Object before = event.getOldState() == null ? null : event.getOldState()[i];
      if (now != null && !now.equals(before)) {
        Object key = index.entity().keyIsIdentifier() ? event.getId()
            : event.getState()[indexOf(p, index.entity().keyAttribute())];
        put(index, now, key, event.getId());
      }
    }
    return false;
  }

  @Override
  public void onPostUpdate(PostUpdateEvent event) {
    for (Index index : indexes().getOrDefault(event.getPersister().getEntityName(), List.of())) {
      int i = indexOf(event.getPersister(), index.attribute());
      Object before = event.getOldState() == null ? null : event.getOldState()[i];
      if (before != null && !before.equals(event.getState()[i])) {
        remove(index, before, event.getId());
      }
    }
  }

  @Override
  public void onPostUpdateCommitFailed(PostUpdateEvent event) {
    // the new value's row stays behind, stale; verified reads ignore it
  }

  @Override
  public void onPostDelete(PostDeleteEvent event) {
    for (Index index : indexes().getOrDefault(event.getPersister().getEntityName(), List.of())) {
      Object value = event.getDeletedState()[indexOf(event.getPersister(), index.attribute())];
      if (value != null) {
        remove(index, value, event.getId());
      }
    }
  }

  @Override
  public void onPostDeleteCommitFailed(PostDeleteEvent event) {
    // the entity is still there, and so is its index row
  }

  @Override
  public boolean requiresPostCommitHandling(EntityPersister persister) {
    return indexes().containsKey(persister.getEntityName());
  }

  private void put(Index index, Object value, Object key, Object id) {
    String shard = router.shardFor(value);
    sql(shard, index, c -> {
      boolean auto = c.getAutoCommit();
      c.setAutoCommit(false);
      try {
        if (index.unique()) {
          checkUnique(c, index, value, id);
        }
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + index.sql() + " (value, shard_key, entity_id)"
            + " VALUES (?, ?, ?) ON CONFLICT (value, entity_id) DO UPDATE SET shard_key = EXCLUDED.shard_key")) {
          ps.setString(1, value.toString());
          ps.setString(2, key.toString());
          ps.setString(3, id.toString());
          ps.executeUpdate();
        }
        c.commit();
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(auto);
      }
      return null;
    });
  }

  private void checkUnique(Connection c, Index index, Object value, Object id) throws SQLException {
    try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))")) {
      lock.setString(1, index.table() + ":" + value);
      lock.execute();
    }
    List<String[]> others = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement("SELECT shard_key, entity_id, created_at < now() - make_interval("
        + "secs => " + PENDING_SECONDS + ") FROM " + index.sql() + " WHERE value = ? AND entity_id <> ?")) {
      ps.setString(1, value.toString());
      ps.setString(2, id.toString());
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          others.add(new String[] {rs.getString(1), rs.getString(2), Boolean.toString(rs.getBoolean(3))});
        }
      }
    }
    String name = index.entity().simpleName() + "." + index.attribute();
    for (Object holder : loadAll(index.entity().javaType(), index, others)) {
      if (Objects.equals(attributeOf(holder, index), value)) {
        throw new GlobalIndexUniqueException("[GlobalIndexUnique] " + name + " = '" + value + "' already belongs to "
            + index.entity().simpleName() + "#" + sessionFactory.getPersistenceUnitUtil().getIdentifier(holder)
            + "; @GlobalIndex(unique = true) allows one per value");
      }
    }
    for (String[] other : others) {
      if (!Boolean.parseBoolean(other[2])) {
        throw new GlobalIndexUniqueException("[GlobalIndexPending] " + name + " = '" + value + "' is being written by"
            + " another transaction (" + index.entity().simpleName() + "#" + other[1] + ", under " + PENDING_SECONDS
            + " s old and not committed yet); retry in a moment");
      }
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + index.sql() + " WHERE value = ? AND entity_id = ?")) {
        ps.setString(1, value.toString());
        ps.setString(2, other[1]);
        ps.executeUpdate();
      }
    }
  }

  private void remove(Index index, Object value, Object id) {
    sql(router.shardFor(value), index, c -> {
      try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + index.sql() + " WHERE value = ? AND entity_id = ?")) {
        ps.setString(1, value.toString());
        ps.setString(2, id.toString());
        ps.executeUpdate();
      }
      if (!c.getAutoCommit()) {
        c.commit();
      }
      return null;
    });
  }

  // ---- backfill ------------------------------------------------------------------------------

  /** Indexes the entities already stored, shard by shard, in batches of 500 by id; returns the count indexed. */
  public long backfill(Class<?> type, String attribute, Consumer<BackfillProgress> progress) {
    Index index = index(type, attribute);
    EntityPersister p = persister(index);
    String idName = p.getIdentifierPropertyName();
    String key = index.entity().keyIsIdentifier() ? idName : index.entity().keyAttribute();
    String entity = index.entity().entityName();
    long all = 0;
    for (String shard : router.map().shards().keySet()) {
      try (Session s = ShardSessions.open(sessionFactory, shard, true)) {
        // a backfill reads every row of each shard in turn: the query guard's bypass is for exactly this
        long total = QueryGuard.bypass(() -> s.createSelectionQuery(
            QueryGuard.scatterGather("select count(e) from " + entity + " e"), Long.class).getSingleResult());
        long done = 0;
        long indexed = 0;
        Object last = null;
        while (true) {
          String hql = "select e." + idName + ", e." + key + ", e." + attribute + " from " + entity + " e"
              + (last == null ? "" : " where e." + idName + " > :last") + " order by e." + idName;
          Object after = last;
          List<Object[]> rows = QueryGuard.bypass(() -> {
            var q = s.createSelectionQuery(QueryGuard.scatterGather(hql), Object[].class).setMaxResults(BATCH);
            if (after != null) {
              q.setParameter("last", after);
            }
            return q.getResultList();
          });
          // while buckets move, a shard also holds copies of rows it does not serve: index each row from one shard
          boolean copies = router.map().hasCopies();
          for (Object[] row : rows) {
            if (!copies || shard.equals(router.readShardFor(row[1]))) {
              indexed++;
              if (row[2] != null) {
                put(index, row[2], row[1], row[0]);
              }
            }
          }
          done += rows.size();
          if (!rows.isEmpty()) {
            last = rows.get(rows.size() - 1)[0];
            progress.accept(new BackfillProgress(shard, done, total));
          }
          if (rows.size() < BATCH) {
            break;
          }
          s.clear();
        }
        all += indexed;
      }
    }
    return all;
  }

  // ---- plumbing ------------------------------------------------------------------------------

  private interface Work<R> {
    R run(Connection c) throws SQLException;
  }

  private <R> R sql(String shard, Index index, Work<R> work) {
    try (Connection c = primaries.primary(shard)) {
      if (tablesReady.add(index.table() + "@" + shard)) {
        try {
          OwnObjects.ensure(c, createTables, "shard '" + shard + "'", index.table(),
              ShardwiseDdl.globalIndexStatements(index.table()), List.of(index.table()),
              ShardwiseDdl.GLOBAL_INDEX_PRIVILEGES, role -> ShardwiseDdl.globalIndexScript(index.table(), role));
        } catch (SQLException | RuntimeException e) {
          tablesReady.remove(index.table() + "@" + shard);
          throw e;
        }
      }
      return work.run(c);
    } catch (SQLException e) {
      throw new ShardwiseException("Global index " + index.table() + " on shard '" + shard + "' failed: "
          + e.getMessage(), e);
    }
  }

  private EntityPersister persister(Index index) {
    return sessionFactory.unwrap(org.hibernate.engine.spi.SessionFactoryImplementor.class).getMappingMetamodel()
        .getEntityDescriptor(index.entity().entityName());
  }

  private Class<?> idClass(Index index) {
    return persister(index).getIdentifierType().getReturnedClass();
  }

  private Class<?> keyClass(Index index) {
    EntityPersister p = persister(index);
    return index.entity().keyIsIdentifier() ? p.getIdentifierType().getReturnedClass()
        : p.getPropertyType(index.entity().keyAttribute()).getReturnedClass();
  }

  private Object attributeOf(Object entity, Index index) {
    return persister(index).getPropertyValue(entity, index.attribute());
  }

  private static Object parse(String text, Class<?> type) {
    if (type == Long.class || type == long.class) {
      return Long.valueOf(text);
    }
    if (type == Integer.class || type == int.class) {
      return Integer.valueOf(text);
    }
    if (type == Short.class || type == short.class) {
      return Short.valueOf(text);
    }
    if (type == UUID.class) {
      return UUID.fromString(text);
    }
    if (type == String.class) {
      return text;
    }
    throw new ShardingConfigurationException("A global index cannot store keys or ids of " + type.getName()
        + ": use a number, a string or a UUID");
  }
}
