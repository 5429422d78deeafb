package io.shardwise.hibernate.internal.query;

import org.hibernate.engine.spi.LoadQueryInfluencers;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.query.spi.QueryOptions;
import org.hibernate.query.spi.QueryParameterBindings;
import org.hibernate.query.sqm.SqmQuerySource;
import org.hibernate.query.sqm.internal.DomainParameterXref;
import org.hibernate.query.sqm.sql.SqmTranslator;
import org.hibernate.query.sqm.sql.SqmTranslatorFactory;
import org.hibernate.query.sqm.sql.StandardSqmTranslatorFactory;
import org.hibernate.query.sqm.tree.SqmDmlStatement;
import org.hibernate.query.sqm.tree.SqmStatement;
import org.hibernate.query.sqm.tree.select.SqmSelectStatement;
import org.hibernate.sql.ast.spi.SqlAstCreationContext;
import org.hibernate.sql.ast.tree.MutationStatement;
import org.hibernate.sql.ast.tree.select.SelectStatement;

/**
 * Hibernate's SQM-to-SQL translator factory with the shard-key guard in front, for criteria
 * queries, which never pass through the HQL translator. Set through {@value #SETTING} (Shardwise
 * sets it next to {@link GuardedHqlTranslator#SETTING}; see {@code io.shardwise.hibernate.spi.QueryGuardContributor}).
 *
 * <p>Hibernate asks it for a translator when it builds the SQL of a query, before any SQL is
 * sent. A statement that came from a {@code CriteriaBuilder} ({@link SqmQuerySource#CRITERIA}) is
 * rendered as HQL ({@code toHqlString()}) and held to the same rule by the session factory's
 * {@link QueryGuard}, whose verdict is kept per rendered text; statements from HQL were judged when
 * their text was translated and pass untouched.
 *
 * <p>For a sharded session factory the translation is Hibernate's standard one with the shard key
 * pins made checkable at execution ({@link KeyPinTranslator}): every execution checks that the key
 * values it binds belong to the session's shard. (Shardwise refuses to start a sharded unit whose
 * dialect brings its own SQM translator.) Other session factories get the dialect's factory, or
 * Hibernate's standard one.
 */
public final class GuardedSqmTranslatorFactory implements SqmTranslatorFactory {

  /** Hibernate's property naming a custom SQM translator factory class. */
  public static final String SETTING = "hibernate.query.sqm.translator";

  private volatile SqmTranslatorFactory delegate;

  public GuardedSqmTranslatorFactory() {}

  @Override
  public SqmTranslator<SelectStatement> createSelectTranslator(SqmSelectStatement<?> statement,
      QueryOptions queryOptions, DomainParameterXref domainParameterXref, QueryParameterBindings parameterBindings,
      LoadQueryInfluencers loadQueryInfluencers, SqlAstCreationContext creationContext,
      boolean deduplicateSelectionItems) {
    QueryGuard guard = guard(statement, queryOptions, creationContext.getSessionFactory());
    if (guard != null) {
      return new KeyPinTranslator<>(statement, queryOptions, domainParameterXref, parameterBindings,
          loadQueryInfluencers, creationContext, deduplicateSelectionItems, guard.sharding(), guard.keyValues());
    }
    return delegate(creationContext.getSessionFactory()).createSelectTranslator(statement, queryOptions,
        domainParameterXref, parameterBindings, loadQueryInfluencers, creationContext, deduplicateSelectionItems);
  }

  @Override
  public SqmTranslator<? extends MutationStatement> createMutationTranslator(SqmDmlStatement<?> statement,
      QueryOptions queryOptions, DomainParameterXref domainParameterXref, QueryParameterBindings parameterBindings,
      LoadQueryInfluencers loadQueryInfluencers, SqlAstCreationContext creationContext) {
    QueryGuard guard = guard(statement, queryOptions, creationContext.getSessionFactory());
    if (guard != null) {
      return new KeyPinTranslator<>(statement, queryOptions, domainParameterXref, parameterBindings,
          loadQueryInfluencers, creationContext, false, guard.sharding(), guard.keyValues());
    }
    return delegate(creationContext.getSessionFactory()).createMutationTranslator(statement, queryOptions,
        domainParameterXref, parameterBindings, loadQueryInfluencers, creationContext);
  }

  /** Holds a criteria statement to the rule; returns the factory's guard, null when it has none. */
  private static QueryGuard guard(SqmStatement<?> statement, QueryOptions options, SessionFactoryImplementor factory) {
    QueryGuard guard = QueryGuards.of(factory);
    if (guard != null && statement.getQuerySource() == SqmQuerySource.CRITERIA) {
      guard.checkCriteria(statement.toHqlString(), options == null ? null : options.getComment());
    }
    return guard;
  }

  private SqmTranslatorFactory delegate(SessionFactoryImplementor factory) {
    SqmTranslatorFactory d = delegate;
    if (d == null) {
      SqmTranslatorFactory dialects = factory.getJdbcServices().getDialect().getSqmTranslatorFactory();
      d = dialects != null ? dialects : new StandardSqmTranslatorFactory();
      delegate = d;
    }
    return d;
  }
}
