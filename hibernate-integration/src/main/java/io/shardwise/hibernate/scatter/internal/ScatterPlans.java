package io.shardwise.hibernate.scatter.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.hibernate.engine.spi.SessionFactoryImplementor;

/**
 * The scatter plans of one session factory, by query text. A plan is pure data that depends only
 * on the text, the mapping and where each entity is placed, all fixed once the session factory is
 * built, so each text is planned once; a query that is refused is planned (and refused) again every
 * time. Bounded like Hibernate's own query plan cache: past {@value #MAX_PLANS} texts it starts over.
 */
public final class ScatterPlans {
  static final int MAX_PLANS = 2048;

  private final ConcurrentHashMap<String, ScatterPlan> plans = new ConcurrentHashMap<>();

  /** The plan of {@code hql}, as {@link ScatterPlanner#plan(SessionFactoryImplementor, String, Function)} makes it. */
  public ScatterPlan plan(SessionFactoryImplementor sessionFactory, String hql, Function<Class<?>, String> placement) {
    ScatterPlan plan = plans.get(hql);
    if (plan == null) {
      plan = ScatterPlanner.plan(sessionFactory, hql, placement);
      if (plans.size() >= MAX_PLANS) {
        plans.clear();
      }
      plans.put(hql, plan);
    }
    return plan;
  }
}
