package io.shardwise.hibernate;

import io.shardwise.hibernate.internal.ScatterMarks;
import io.shardwise.hibernate.internal.ShardwiseRuntime;
import jakarta.persistence.metamodel.EntityType;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.query.sqm.spi.NamedSqmQueryMemento;

/**
 * Queries that run on every shard at once and come back as one merged result. Obtained from
 * {@link ShardedSessions#scatter()}.
 *
 * <pre>{@code
 * List<PurchaseOrder> newest = shards.scatter()
 *     .createQuery("from PurchaseOrder o where o.status = :s order by o.placedAt desc, o.id desc", PurchaseOrder.class)
 *     .setParameter("s", Status.PENDING)
 *     .setMaxResults(20)
 *     .deadline(Duration.ofSeconds(2))
 *     .getResultList();
 * }</pre>
 *
 * <p>See {@link ScatterQuery} for what is merged and what is refused.
 */
public final class ScatterGather {
  private final ShardedSessions shards;
  private final ShardwiseRuntime runtime;

  ScatterGather(ShardedSessions shards, ShardwiseRuntime runtime) {
    this.shards = shards;
    this.runtime = runtime;
  }

  /**
   * A scatter query for {@code hql}. {@code resultType} is the selected type for one selection,
   * {@code Object[].class} for several.
   */
  public <T> ScatterQuery<T> createQuery(String hql, Class<T> resultType) {
    return new ScatterQuery<>(shards, runtime, hql, resultType);
  }

  /**
   * A scatter query for a named query, which must be declared with {@code @NamedQuery} (Jakarta's
   * or Hibernate's) on an entity that also carries {@link io.shardwise.annotations.ScatterGather @ScatterGather} naming
   * it (or naming none, which allows all of that entity's named queries).
   */
  public <T> ScatterQuery<T> createNamedQuery(String name, Class<T> resultType) {
    SessionFactoryImplementor sf = shards.sessionFactory().unwrap(SessionFactoryImplementor.class);
    NamedSqmQueryMemento<?> memento = sf.getQueryEngine().getNamedObjectRepository().getSqmQueryMemento(name);
    if (memento == null) {
      throw new IllegalArgumentException("No HQL named query '" + name + "' in this session factory");
    }
    if (!allowed(sf, name)) {
      throw new UnsupportedScatterQueryException("Named query '" + name + "' is not allowed to scatter: mark the"
          + " entity that declares it with @ScatterGather(queries = \"" + name + "\") (or @ScatterGather for all"
          + " its named queries), or route it to one shard with shards.forKey(key)");
    }
    return createQuery(memento.getHqlString(), resultType);
  }

  private static boolean allowed(SessionFactoryImplementor sf, String name) {
    for (EntityType<?> entity : sf.getJpaMetamodel().getEntities()) {
      Class<?> type = entity.getJavaType();
      if (type != null && ScatterMarks.allowsScatter(type, name)) {
        return true;
      }
    }
    return false;
  }
}
