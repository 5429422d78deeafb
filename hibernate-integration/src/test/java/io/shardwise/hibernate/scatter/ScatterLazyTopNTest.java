package io.shardwise.hibernate.scatter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.harness.Layout;
import io.shardwise.hibernate.harness.ShardedUnit;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The top-N of plain entities merged lazily: of k shards' pushed-down pages, only the rows the
 * k-way merge consumes become entities (offset + limit + k - 1, not k times offset + limit), and
 * every session and connection comes back — after an answer, and after a shard's row fails to
 * load in the middle of the merge.
 */
@ShardedPostgres(shards = Layout.MAX_SHARDS)
class ScatterLazyTopNTest {
  private static final int SHARDS = Layout.MAX_SHARDS;
  private static final int READINGS = 300;
  private static final String NEWEST = "select r from Reading r order by r.id desc";
  private static ShardedUnit unit;
  private static ShardedSessions shards;

  @BeforeAll
  static void start(PostgresTopology pg) throws SQLException {
    unit = ShardedUnit.on(pg, new Layout(Layout.Strategy.BUCKET, SHARDS)).entities(Reading.class)
        .placements(List.of(new ShardedUnit.Placement("reading", "sensor_id"))).start();
    shards = unit.shards();
    for (long id = 1; id <= READINGS; id++) {
      Reading reading = new Reading(id, id, (int) id);
      shards.forKey(id).inTransaction(s -> s.persist(reading));
    }
    for (int i = 0; i < SHARDS; i++) {
      assertTrue(unit.count(i, "SELECT count(*) FROM reading") >= 30, "shard " + i + " holds a page and more");
    }
  }

  @AfterAll
  static void stop() {
    if (unit != null) {
      unit.close();
    }
  }

  @BeforeEach
  void countAfresh() {
    Reading.LOADS.set(0);
    Reading.poison = null;
  }

  @AfterEach
  void everySessionAndConnectionCameBack() throws SQLException {
    Reading.poison = null;
    unit.assertInvariants();
  }

  @Test
  void aTopNMaterialisesOnlyTheRowsTheMergeConsumes() {
    List<Reading> newest = shards.scatter().createQuery(NEWEST, Reading.class).setMaxResults(20).getResultList();

    assertEquals(LongStream.iterate(READINGS, id -> id - 1).limit(20).boxed().toList(),
        newest.stream().map(Reading::getId).toList());
    int lazyLoads = Reading.LOADS.get();
    assertTrue(lazyLoads >= 20 && lazyLoads <= 20 + SHARDS - 1,
        "20 rows over " + SHARDS + " shards materialise at most " + (20 + SHARDS - 1) + " entities, not " + lazyLoads);
    unit.assertNoConnectionLeaked();

    // the same query on the eager path (PARTIAL keeps it there) materialises every shard's page
    Reading.LOADS.set(0);
    List<Reading> eager = shards.scatter().createQuery(NEWEST, Reading.class).setMaxResults(20)
        .onShardFailure(ShardFailurePolicy.PARTIAL).getResultList();
    assertEquals(newest.stream().map(Reading::getId).toList(), eager.stream().map(Reading::getId).toList());
    assertEquals(20 * SHARDS, Reading.LOADS.get(), "the eager path materialises every shard's 20 rows");
  }

  @Test
  void anOffsetPageSkipsRowsButStillMaterialisesNoMoreThanThePageNeeds() {
    ScatterResult<Reading> page = shards.scatter().createQuery(NEWEST, Reading.class).setFirstResult(10)
        .setMaxResults(15).getResult();

    assertEquals(LongStream.iterate(READINGS - 10, id -> id - 1).limit(15).boxed().toList(),
        page.rows().stream().map(Reading::getId).toList());
    assertTrue(Reading.LOADS.get() <= 25 + SHARDS - 1, "materialised " + Reading.LOADS.get());
    assertEquals(Reading.LOADS.get(), page.shardRows().values().stream().mapToInt(Integer::intValue).sum(),
        "shardRows counts the rows the merge took from each shard");
    assertEquals(SHARDS, page.shardTimes().size());
    assertEquals(READINGS - 24, ((Number) page.lastSortKey()[0]).longValue());
  }

  @Test
  void aRowThatFailsToLoadMidMergeFailsTheQueryNamingItsShardAndReturnsEveryConnection() {
    long poisoned = READINGS - 7;
    Reading.poison = poisoned;

    ScatterGatherException e = assertThrows(ScatterGatherException.class,
        () -> shards.scatter().createQuery(NEWEST, Reading.class).setMaxResults(20).getResultList());

    String shardOfPoison = shards.shardFor(poisoned);
    assertEquals(java.util.Set.of(shardOfPoison), e.missingShards().keySet(), e.getMessage());
    assertTrue(e.getMessage().contains(shardOfPoison) && e.getMessage().contains("while its rows were merged"),
        e.getMessage());
    assertTrue(Reading.LOADS.get() <= 8 + SHARDS, "the merge stopped at the failing row: " + Reading.LOADS.get());
    unit.assertNoConnectionLeaked();

    // and the next query runs on the same pools
    Reading.poison = null;
    assertEquals(20, shards.scatter().createQuery(NEWEST, Reading.class).setMaxResults(20).getResultList().size());
  }
}
