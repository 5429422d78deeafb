package io.shardwise.hibernate.scatter.internal;

import io.shardwise.hibernate.scatter.ScatterQueries;
import io.shardwise.hibernate.scatter.ScatterQuery;
import io.shardwise.hibernate.scatter.UnsupportedScatterQueryException;
import io.shardwise.hibernate.internal.ScatterMarks;
import jakarta.persistence.metamodel.EntityType;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.query.sqm.spi.NamedSqmQueryMemento;

/** {@link ScatterQueries} of one session factory: each query planned, fanned out and merged by {@link ParallelScatterQuery}. */
public final class ParallelScatterQueries implements ScatterQueries {
  private final ScatterContext context;

  public ParallelScatterQueries(ScatterContext context) {
    this.context = context;
  }

  @Override
  public <T> ScatterQuery<T> createQuery(String hql, Class<T> resultType) {
    return new ParallelScatterQuery<>(context, hql, resultType);
  }

  @Override
  public <T> ScatterQuery<T> createNamedQuery(String name, Class<T> resultType) {
    SessionFactoryImplementor sf = context.sessionFactory().unwrap(SessionFactoryImplementor.class);
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
