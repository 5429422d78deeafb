package io.shardwise.hibernate.scatter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.shardwise.hibernate.scatter.internal.ScatterPlan.Merge;
import io.shardwise.hibernate.scatter.internal.ScatterPlan.Shape;
import io.shardwise.hibernate.scatter.internal.ScatterPlan;
import io.shardwise.hibernate.scatter.internal.ScatterPlanner;
import io.shardwise.hibernate.scatter.internal.ScatterPlans;
import java.util.List;
import org.hibernate.SessionFactory;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Scatter plans as data: a query in, the per-shard HQL and the merge out. No database. */
class ScatterPlanTest {
  private static final String SALE = Sale.class.getName();
  private static SessionFactory sessionFactory;

  @BeforeAll
  static void start() {
    sessionFactory = PlanOnlySessionFactory.of(Sale.class);
  }

  @AfterAll
  static void stop() {
    sessionFactory.close();
  }

  private static ScatterPlan plan(String hql) {
    return ScatterPlanner.plan(sessionFactory.unwrap(SessionFactoryImplementor.class), hql);
  }

  private static List<Merge> merges(ScatterPlan plan) {
    return plan.columns().stream().map(ScatterPlan.Column::merge).toList();
  }

  @Test
  void eachTextIsPlannedOnceAndARefusedTextIsRefusedEveryTime() {
    SessionFactoryImplementor sf = sessionFactory.unwrap(SessionFactoryImplementor.class);
    ScatterPlans plans = new ScatterPlans();
    String grouped = "select s.region, count(s) from Sale s group by s.region";
    ScatterPlans.Planned first = plans.planned(sf, grouped, type -> null);
    assertSame(first, plans.planned(sf, grouped, type -> null));
    assertEquals(plan(grouped), first.plan());
    String union = "select s.id from Sale s union select s.id from Sale s";
    assertThrows(UnsupportedScatterQueryException.class, () -> plans.planned(sf, union, type -> null));
    assertThrows(UnsupportedScatterQueryException.class, () -> plans.planned(sf, union, type -> null));
  }

  @Test
  void orderedRowsGetTheirUnselectedSortKeyAsAHiddenColumnAndPushTheLimitDown() {
    ScatterPlan p = plan("select s.id from Sale s where s.amount > :min order by s.price desc nulls last, s.id");
    assertEquals("select s.id, s.price from %s s where s.amount > :min order by s.price desc nulls last, s.id asc"
        .formatted(SALE), p.shardHql(null));
    assertEquals(Shape.ROWS, p.shape());
    assertEquals(1, p.selectionCount());
    assertEquals(List.of(new ScatterPlan.SortKey(1, true, false), new ScatterPlan.SortKey(0, false, false)), p.sortKeys());
    assertEquals(true, p.pushesDownLimit());
  }

  @Test
  void avgBecomesSumAndCountAndGroupedQueriesAreResortedAfterTheMerge() {
    ScatterPlan p = plan("select s.region, avg(s.amount), count(s) from Sale s group by s.region order by 2 desc");
    assertEquals("select s.region, sum(s.amount), count(s.amount), count(s) from %s s group by s.region".formatted(SALE),
        p.shardHql(null));
    assertEquals(Shape.GROUPED, p.shape());
    assertEquals(List.of(Merge.KEY, Merge.SUM, Merge.COUNT, Merge.COUNT), merges(p));
    assertEquals(new ScatterPlan.Slot(1, 2), p.slots().get(1));
    assertEquals(List.of(new ScatterPlan.SortKey(1, true, true)), p.sortKeys());
    assertEquals(null, p.orderBy());
    assertEquals(false, p.pushesDownLimit());
  }

  @Test
  void aGroupByKeyThatIsNotSelectedIsStillReturnedSoGroupsCanBeMerged() {
    ScatterPlan p = plan("select max(s.price) from Sale s group by s.status");
    assertEquals("select max(s.price), s.status from %s s group by s.status".formatted(SALE), p.shardHql(null));
    assertEquals(List.of(Merge.MAX, Merge.KEY), merges(p));
    assertEquals(1, p.selectionCount());
  }

  @Test
  void limitAndOffsetWrittenInHqlAreReadFromTheModelAndLeftOutOfTheShardQuery() {
    ScatterPlan p = plan("select distinct s.region from Sale s order by s.region limit 5 offset 10");
    assertEquals("select distinct s.region from %s s order by s.region asc".formatted(SALE), p.shardHql(null));
    assertEquals(Shape.DISTINCT_ROWS, p.shape());
    assertEquals(5, p.limit());
    assertEquals(10, p.offset());
  }
}
