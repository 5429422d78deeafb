package io.shardwise.hibernate.scatter;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.math.BigDecimal;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Scatter-gather with a slow shard, a late shard and a dead shard. Each shard gets SQL functions
 * that sleep for a different time; being immutable, PostgreSQL evaluates them once per statement,
 * while planning, so a query that calls one is exactly that slow on that shard.
 */
@ShardedPostgres(shards = 3)
class ScatterFaultTest {
  private static final String SLOW = "select count(s) from Sale s where cast(function('shard_delay') as Integer) = 1";
  private static final String STUCK = "select s.id from Sale s where cast(function('shard_stuck') as Integer) = 1 order by s.id";

  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;
  private static final long[] ROWS_ON = new long[3];

  @BeforeAll
  static void start(PostgresTopology pg) throws SQLException {
    sessionFactory = ScatterFixture.sharded(pg);
    shards = ShardedSessions.of(sessionFactory);
    for (long id = 1; id <= 60; id++) {
      long merchant = id % 20;
      Sale sale = new Sale(id, merchant, "north", "new", (int) id, BigDecimal.ONE);
      shards.forKey(merchant).inTransaction(s -> s.persist(sale));
    }
    double[] delays = {0.2, 0.4, 0.8};
    for (int i = 0; i < 3; i++) {
      ScatterFixture.execute(pg.shard(i), "CREATE OR REPLACE FUNCTION shard_delay() RETURNS int IMMUTABLE"
          + " LANGUAGE sql AS $$ SELECT 1 FROM pg_sleep(" + delays[i] + ") $$");
      ScatterFixture.execute(pg.shard(i), "CREATE OR REPLACE FUNCTION shard_stuck() RETURNS int IMMUTABLE"
          + " LANGUAGE sql AS $$ SELECT 1 FROM pg_sleep(" + (i == 2 ? 20 : 0) + ") $$");
      // stuck on the shard whose part the calling thread runs itself: the first of the shard map
      boolean callers = ("shard" + i).equals(shards.shardIds().iterator().next());
      ScatterFixture.execute(pg.shard(i), "CREATE OR REPLACE FUNCTION caller_stuck() RETURNS int IMMUTABLE"
          + " LANGUAGE sql AS $$ SELECT 1 FROM pg_sleep(" + (callers ? 20 : 0) + ") $$");
      ROWS_ON[i] = ScatterFixture.count(pg.shard(i), "SELECT count(*) FROM sale");
      assertTrue(ROWS_ON[i] > 0, "shard " + i + " holds sales");
    }
  }

  @AfterAll
  static void stop() {
    if (sessionFactory != null) {
      sessionFactory.close();
    }
  }

  @Test
  void shardsRunInParallelSoTheQueryTakesAboutAsLongAsTheSlowestShard() {
    shards.scatter().createQuery(SLOW, Long.class).getResult(); // warm up pools and Hibernate's plan cache
    ScatterResult<Long> result = shards.scatter().createQuery(SLOW, Long.class).getResult();
    assertEquals(60L, result.rows().get(0));
    assertTrue(result.isComplete());
    long sum = result.shardTimes().values().stream().mapToLong(Duration::toMillis).sum();
    long slowest = result.shardTimes().values().stream().mapToLong(Duration::toMillis).max().orElseThrow();
    System.out.printf("scatter with shard delays 200/400/800 ms: total %d ms, slowest shard %d ms,"
        + " sum of shard times %d ms, per shard %s%n", result.elapsed().toMillis(), slowest, sum, result.shardTimes());
    assertEquals(Set.of("shard0", "shard1", "shard2"), result.shardTimes().keySet());
  }

  @Test
  void aLateShardIsNamedUnderPartialAndItsStatementIsCancelledAtTheDeadline(PostgresTopology pg) {
    ScatterResult<Long> partial = shards.scatter().createQuery(STUCK, Long.class).deadline(Duration.ofMillis(1500))
        .onShardFailure(ShardFailurePolicy.PARTIAL).getResult();
    System.out.printf("deadline 1500 ms, shard2 stuck for 20 s: returned after %d ms, missing %s%n",
        partial.elapsed().toMillis(), partial.missingShards());
    assertEquals(Set.of("shard2"), partial.missingShards().keySet());
    assertTrue(partial.missingShards().get("shard2").contains("deadline"), partial.missingShards().toString());
    assertEquals(ROWS_ON[0] + ROWS_ON[1], partial.rows().size());
    // the server cancelled the sleeping statement (statement_timeout), it is not left running for 20 s
    await().atMost(Duration.ofSeconds(10)).until(() -> ScatterFixture.count(pg.shard(2),
        "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%shard_stuck%'"
            + " AND pid <> pg_backend_pid()") == 0);

    ScatterGatherException e = assertThrows(ScatterGatherException.class,
        () -> shards.scatter().createQuery(STUCK, Long.class).deadline(Duration.ofMillis(1500)).getResultList());
    assertEquals(Set.of("shard2"), e.missingShards().keySet());
    assertTrue(e.getMessage().contains("shard2 no answer within the deadline"), e.getMessage());
  }

  /**
   * A top-N whose per-shard limit fits one fetch runs as one statement per shard, outside a
   * transaction, so no {@code SET LOCAL statement_timeout} bounds it: the driver sends the server a
   * cancel request at the deadline instead. The late shard's statement must be gone long before its
   * 20 s sleep would end, and the other shards' rows must be the first five.
   */
  @Test
  void aLateShardOfABoundedTopNIsNamedAndItsStatementIsCancelledAtTheDeadline(PostgresTopology pg) {
    // warm up pools and Hibernate's plan cache, so that only shard2 can be late
    shards.scatter().createQuery(STUCK, Long.class).setMaxResults(5).deadline(Duration.ofSeconds(3))
        .onShardFailure(ShardFailurePolicy.PARTIAL).getResult();
    await().atMost(Duration.ofSeconds(10)).until(() -> stuckStatements(pg) == 0);

    ScatterResult<Long> bounded = shards.scatter().createQuery(STUCK, Long.class).setMaxResults(5)
        .deadline(Duration.ofSeconds(3)).onShardFailure(ShardFailurePolicy.PARTIAL).getResult();
    assertEquals(Set.of("shard2"), bounded.missingShards().keySet(), bounded.missingShards().toString());
    assertTrue(bounded.missingShards().get("shard2").contains("deadline"), bounded.missingShards().toString());
    List<Long> firstFiveElsewhere = java.util.stream.LongStream.rangeClosed(1, 60)
        .filter(id -> !shards.shardFor(id % 20).equals("shard2")).limit(5).boxed().toList();
    assertEquals(firstFiveElsewhere, bounded.rows());
    // well before the pool's own statement_timeout (10 s from the start) could end it
    await().atMost(Duration.ofSeconds(4)).until(() -> stuckStatements(pg) == 0);
  }

  /**
   * The calling thread runs the first shard's part itself (it would only wait otherwise); stuck
   * there, that part is still cancelled by the server at the deadline, so the caller is not held
   * past it, and the other shards' answers, which came while the caller was busy, are kept.
   */
  @Test
  void aStuckShardWhosePartTheCallerRunsIsCancelledAtTheDeadlineAndTheOtherAnswersAreKept(PostgresTopology pg) {
    String callers = shards.shardIds().iterator().next();
    int index = Integer.parseInt(callers.substring("shard".length()));
    String hql = "select s.id from Sale s where cast(function('caller_stuck') as Integer) = 1 order by s.id";
    for (int limit : new int[] {5, -1}) { // one statement per shard; and a first fetch, then a cursor
      ScatterQuery<Long> q = shards.scatter().createQuery(hql, Long.class).deadline(Duration.ofMillis(1500))
          .onShardFailure(ShardFailurePolicy.PARTIAL);
      if (limit > 0) {
        q.setMaxResults(limit);
      }
      ScatterResult<Long> partial = q.getResult();
      assertEquals(Set.of(callers), partial.missingShards().keySet(), partial.missingShards().toString());
      assertTrue(partial.missingShards().get(callers).contains("deadline"), partial.missingShards().toString());
      long others = java.util.Arrays.stream(ROWS_ON).sum() - ROWS_ON[index];
      assertEquals(limit > 0 ? limit : others, partial.rows().size(), "the other shards' rows, limit " + limit);
      await().atMost(Duration.ofSeconds(10)).until(() -> ScatterFixture.count(pg.shard(index),
          "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%caller_stuck%'"
              + " AND pid <> pg_backend_pid()") == 0);
    }
  }

  private static long stuckStatements(PostgresTopology pg) throws SQLException {
    return ScatterFixture.count(pg.shard(2), "SELECT count(*) FROM pg_stat_activity WHERE state = 'active'"
        + " AND query LIKE '%shard_stuck%' AND pid <> pg_backend_pid()");
  }

  @Test
  void aDeadShardFailsTheQueryUnderFailAndIsNamedUnderPartial(PostgresTopology pg) {
    String hql = "select s.id from Sale s order by s.id";
    pg.shard(1).primary().kill();
    try {
      ScatterGatherException e = assertThrows(ScatterGatherException.class,
          () -> shards.scatter().createQuery(hql, Long.class).deadline(Duration.ofSeconds(10)).getResultList());
      System.out.println("shard1 down, policy FAIL: " + e.getMessage());
      assertTrue(e.missingShards().containsKey("shard1"), e.missingShards().toString());
      assertTrue(e.getMessage().contains("shard1 failed"), e.getMessage());

      ScatterResult<Long> partial = shards.scatter().createQuery(hql, Long.class).deadline(Duration.ofSeconds(10))
          .onShardFailure(ShardFailurePolicy.PARTIAL).getResult();
      System.out.println("shard1 down, policy PARTIAL: " + partial.rows().size() + " rows, missing "
          + partial.missingShards());
      assertEquals(Set.of("shard1"), partial.missingShards().keySet());
      assertEquals(ROWS_ON[0] + ROWS_ON[2], partial.rows().size());
      assertEquals(Map.of("shard0", (int) ROWS_ON[0], "shard2", (int) ROWS_ON[2]), partial.shardRows());
    } finally {
      pg.shard(1).primary().start();
    }
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> shards.scatter()
        .createQuery(hql, Long.class).getResultList().size() == 60);
  }
}
