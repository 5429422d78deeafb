package io.shardwise.hibernate.scatter.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import io.shardwise.hibernate.internal.query.QueryGuard;
import org.hibernate.engine.spi.SessionFactoryImplementor;

/**
 * The scatter plans of one session factory, by query text. A plan is pure data that depends only
 * on the text, the mapping and where each entity is placed, all fixed once the session factory is
 * built, so each text is planned once; a query that is refused is planned (and refused) again every
 * time. Bounded like Hibernate's own query plan cache: past {@value #MAX_PLANS} texts it starts over.
 */
public final class ScatterPlans {
  static final int MAX_PLANS = 2048;

  private final ConcurrentHashMap<String, Planned> plans = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, java.util.Optional<ScalarPartSql>> keysetParts = new ConcurrentHashMap<>();

  /**
   * A plan and the HQL every shard runs when no keyset or bucket filter is added to it, already
   * marked for the query guard: one string per query text, so Hibernate finds its translation by
   * a hash computed once; and, for a part that returns scalars only (aggregates, groups, projections
   * of basic values), that HQL's SQL to run as a plain statement ({@link ScalarPartSql}), or null.
   */
  public record Planned(ScatterPlan plan, String markedShardHql, ScalarPartSql scalarSql) {}

  /**
   * The plan of {@code hql}, as {@link ScatterPlanner#plan(SessionFactoryImplementor, String, Function)}
   * makes it, with its plain shard HQL marked; planned once per query text.
   */
  public Planned planned(SessionFactoryImplementor sessionFactory, String hql, Function<Class<?>, String> placement) {
    Planned planned = plans.get(hql);
    if (planned == null) {
      ScatterPlan plan = ScatterPlanner.plan(sessionFactory, hql, placement);
      String markedShardHql = QueryGuard.scatterGather(plan.shardHql(null));
      planned = new Planned(plan, markedShardHql, scalarParts(plan) ? ScalarPartSql.compile(sessionFactory,
          markedShardHql) : null);
      if (plans.size() >= MAX_PLANS) {
        plans.clear();
      }
      plans.put(hql, planned);
    }
    return planned;
  }

  /**
   * The plain statement of a shard query with a keyset predicate ({@code after(...)}): its text
   * depends only on the query's text, so it is compiled once per text too; null when it is read
   * through Hibernate.
   */
  public ScalarPartSql keysetScalarSql(SessionFactoryImplementor sessionFactory, Planned planned,
      String markedKeysetHql) {
    if (!scalarParts(planned.plan())) {
      return null;
    }
    java.util.Optional<ScalarPartSql> compiled = keysetParts.get(markedKeysetHql);
    if (compiled == null) {
      compiled = java.util.Optional.ofNullable(ScalarPartSql.compile(sessionFactory, markedKeysetHql));
      if (keysetParts.size() >= MAX_PLANS) {
        keysetParts.clear();
      }
      keysetParts.put(markedKeysetHql, compiled);
    }
    return compiled.orElse(null);
  }

  /**
   * Whether the shard query may return values, not entities: aggregates, with or without groups,
   * and projections ({@link ScalarPartSql#compile} then checks that every selection is a basic value).
   */
  private static boolean scalarParts(ScatterPlan plan) {
    return !plan.fetchJoin() && !plan.oneShard();
  }
}
