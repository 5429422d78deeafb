package io.shardwise.hibernate.internal.query;

import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.query.hql.HqlTranslator;
import org.hibernate.query.hql.internal.StandardHqlTranslator;
import org.hibernate.query.sqm.internal.SqmCreationOptionsStandard;
import org.hibernate.query.sqm.tree.SqmStatement;

/**
 * Hibernate's HQL translator with the shard-key guard in front, set through Hibernate's
 * {@value #SETTING} property (Shardwise sets it for every persistence unit whose connections come
 * from {@code ShardwiseConnectionProvider}; see {@code io.shardwise.hibernate.spi.QueryGuardContributor}).
 *
 * <p>Hibernate instantiates it by its no-argument constructor when it reads the session factory
 * options, and calls it once per distinct query string (the translation is then kept in the
 * query interpretation cache), including the named queries it checks at startup. The Shardwise
 * integrator, which runs before the query engine exists, hands it the session factory and arms
 * the guard. The actual translation is delegated to the dialect's translator, or to Hibernate's
 * standard one, exactly as Hibernate would have chosen without a custom translator.
 */
public final class GuardedHqlTranslator implements HqlTranslator {

  /** Hibernate's property naming a custom HQL translator class. */
  public static final String SETTING = "hibernate.query.hql.translator";

  private volatile SessionFactoryImplementor factory;
  private volatile QueryGuard guard;
  private volatile HqlTranslator delegate;

  public GuardedHqlTranslator() {}

  /** The session factory's translator when it is this one, now attached to the factory; else null. */
  public static GuardedHqlTranslator attach(SessionFactoryImplementor factory) {
    HqlTranslator custom = factory.getSessionFactoryOptions().getCustomHqlTranslator();
    if (custom instanceof GuardedHqlTranslator guarded) {
      guarded.factory = factory;
      return guarded;
    }
    return null;
  }

  void arm(QueryGuard guard) {
    this.guard = guard;
  }

  QueryGuard guard() {
    return guard;
  }

  @Override
  public <R> SqmStatement<R> translate(String hql, Class<R> expectedResultType) {
    QueryGuard current = guard;
    if (current != null) {
      current.check(hql);
    }
    return delegate().translate(hql, expectedResultType);
  }

  private HqlTranslator delegate() {
    HqlTranslator d = delegate;
    if (d == null) {
      SessionFactoryImplementor f = factory;
      if (f == null) {
        throw new IllegalStateException(GuardedHqlTranslator.class.getName() + " was asked to translate"
            + " HQL before a session factory was attached; it is attached by Shardwise's integrator"
            + " (io.shardwise.hibernate.spi.ShardwiseIntegrator), which must be on the class path");
      }
      HqlTranslator dialects = f.getJdbcServices().getDialect().getHqlTranslator();
      d = dialects != null
          ? dialects
          : new StandardHqlTranslator(f.getQueryEngine().getCriteriaBuilder(),
              new SqmCreationOptionsStandard(f.getSessionFactoryOptions()));
      delegate = d;
    }
    return d;
  }
}
