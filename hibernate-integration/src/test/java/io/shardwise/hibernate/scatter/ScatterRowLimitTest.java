package io.shardwise.hibernate.scatter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code shardwise.scatter.max_rows} bounds what one scatter query holds: 240 sales on three
 * shards against a cap of 100 rows, fetched 7 at a time.
 */
@ShardedPostgres(shards = 3, scope = ShardedPostgres.Scope.RUN)
class ScatterRowLimitTest {
  private static final int CAP = 100;
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;

  @BeforeAll
  static void start(PostgresTopology pg) throws SQLException {
    sessionFactory = ScatterFixture.sharded(pg, Map.of(ShardwiseSettings.SCATTER_MAX_ROWS, Integer.toString(CAP),
        ShardwiseSettings.SCATTER_FETCH_SIZE, "7"));
    shards = ShardedSessions.of(sessionFactory);
    for (long merchant = 1; merchant <= 40; merchant++) {
      long m = merchant;
      shards.forKey(m).inTransaction(s -> {
        for (int i = 0; i < 6; i++) {
          long id = m * 100 + i;
          s.persist(new Sale(id, m, i % 2 == 0 ? "north" : "south", "new", (int) id, null));
        }
      });
    }
    for (int i = 0; i < 3; i++) {
      assertTrue(ScatterFixture.count(pg.shard(i), "SELECT count(*) FROM sale") < CAP + 1,
          "no single shard holds more than the cap: the cap is about the sum over the shards");
    }
  }

  @AfterAll
  static void stop() {
    if (sessionFactory != null) {
      sessionFactory.close();
    }
  }

  @Test
  void aQueryWhoseShardsSendMoreRowsThanTheCapFailsNamingTheQueryTheCapAndTheWaysOut() {
    String hql = "from Sale s where s.status = 'new'";
    ScatterRowLimitException e = assertThrows(ScatterRowLimitException.class,
        () -> shards.scatter().createQuery(hql, Sale.class).getResultList());
    assertTrue(e.getMessage().contains("[" + hql + "]"), e.getMessage());
    assertTrue(e.getMessage().contains("shardwise.scatter.max_rows = 100"), e.getMessage());
    assertTrue(e.getMessage().contains("setMaxResults") && e.getMessage().contains("after(lastSortKey)")
        && e.getMessage().contains("raise shardwise.scatter.max_rows"), e.getMessage());

    // a partial answer would be a silently smaller one: PARTIAL does not turn the cap into missing shards
    assertThrows(ScatterRowLimitException.class, () -> shards.scatter().createQuery(hql, Sale.class)
        .onShardFailure(ShardFailurePolicy.PARTIAL).getResultList());
  }

  @Test
  void queriesThatStayUnderTheCapAreAnsweredWhole() {
    List<Long> firstThirty = new ArrayList<>();
    for (long merchant = 1; merchant <= 5; merchant++) {
      for (int i = 0; i < 6; i++) {
        firstThirty.add(merchant * 100 + i);
      }
    }
    // ordered with a limit: three shards send at most 30 rows each, 90 in all
    assertEquals(firstThirty, shards.scatter().createQuery("select s.id from Sale s order by s.id", Long.class)
        .setMaxResults(30).getResultList());
    // grouped: the shards send a handful of partial groups, whatever the rows behind them
    ScatterResult<Object[]> byRegion = shards.scatter().createQuery(
        "select s.region, count(s) from Sale s group by s.region order by s.region", Object[].class).getResult();
    assertEquals(List.of("north", 120L, "south", 120L),
        byRegion.rows().stream().flatMap(r -> java.util.Arrays.stream(r)).toList());
    // a WHERE clause that leaves fewer rows than the cap, fetched across several round trips
    assertEquals(60, shards.scatter().createQuery("select s.id from Sale s where s.merchantId <= 10", Long.class)
        .getResultList().size());
  }

  @Test
  void anOffsetPlusLimitOverTheCapIsRefusedBeforeAnySqlWithoutOverflowing() {
    String hql = "from Sale s order by s.id";
    ScatterRowLimitException deep = assertThrows(ScatterRowLimitException.class,
        () -> shards.scatter().createQuery(hql, Sale.class).setFirstResult(95).setMaxResults(10).getResultList());
    assertTrue(deep.getMessage().contains("[" + hql + "] skips 95 rows and returns up to 10"), deep.getMessage());
    assertTrue(deep.getMessage().contains("shardwise.scatter.max_rows = 100")
        && deep.getMessage().contains("after(lastSortKey)"), deep.getMessage());

    // Integer.MAX_VALUE + Integer.MAX_VALUE used to overflow Math.toIntExact into an ArithmeticException
    ScatterRowLimitException huge = assertThrows(ScatterRowLimitException.class,
        () -> shards.scatter().createQuery(hql, Sale.class).setFirstResult(Integer.MAX_VALUE)
            .setMaxResults(Integer.MAX_VALUE).getResultList());
    assertTrue(huge.getMessage().contains("skips 2147483647 rows and returns up to 2147483647"), huge.getMessage());

    ScatterRowLimitException inHql = assertThrows(ScatterRowLimitException.class,
        () -> shards.scatter().createQuery(hql + " limit 2147483647 offset 2147483647", Sale.class).getResultList());
    assertTrue(inHql.getMessage().contains("skips 2147483647 rows and returns up to 2147483647"), inHql.getMessage());

    // a shallower page is served: three shards send at most 30 rows each
    assertEquals(10, shards.scatter().createQuery(hql, Sale.class).setFirstResult(20).setMaxResults(10)
        .getResultList().size());
  }
}
