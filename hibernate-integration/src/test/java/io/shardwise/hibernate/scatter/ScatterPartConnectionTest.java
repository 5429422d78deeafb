package io.shardwise.hibernate.scatter;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardUnavailableException;
import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A scatter part that returns scalars runs on a read-only connection of its shard with no Hibernate
 * session around it; it must still go where a read-only session would (a healthy replica, else the
 * primary, proved by the server's own port), be cancelled on its server at the deadline, and fail
 * with the exception a session's part fails with.
 */
@ShardedPostgres(shards = 2, replicas = 1)
class ScatterPartConnectionTest {
  private static final String PORTS = "select cast(function('inet_server_port') as Integer) from Sale s";
  private static final String STUCK = "select count(s) from Sale s where cast(function('part_stuck') as Integer) = 1";

  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;

  @BeforeAll
  static void start(PostgresTopology pg) throws SQLException {
    sessionFactory = builder(pg).schema("create").buildSessionFactory();
    shards = ShardedSessions.of(sessionFactory);
    for (long id = 1; id <= 20; id++) {
      long merchant = id % 10;
      Sale sale = new Sale(id, merchant, "north", "new", (int) id, BigDecimal.ONE);
      shards.forKey(merchant).inTransaction(s -> s.persist(sale));
    }
    for (PostgresShard shard : pg.shards()) {
      // IMMUTABLE: evaluated once while planning, so the statement is exactly that slow on that shard
      ScatterFixture.execute(shard, "CREATE OR REPLACE FUNCTION part_stuck() RETURNS int IMMUTABLE LANGUAGE sql"
          + " AS $$ SELECT 1 FROM pg_sleep(" + (shard.index() == 1 ? 20 : 0) + ") $$");
      assertTrue(ScatterFixture.count(shard, "SELECT count(*) FROM sale") > 0, "shard " + shard.index() + " holds sales");
    }
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
    shards.checkReplicasNow();
  }

  private static Shardwise.Builder builder(PostgresTopology pg) {
    Shardwise.Builder b = Shardwise.configure().credentials("postgres", null).entities(Sale.class, RegionName.class,
        Customer.class).property(ShardwiseSettings.CONNECTION_TIMEOUT, "1000")
        .property("hibernate.generate_statistics", "true");
    for (PostgresShard shard : pg.shards()) {
      b.shard("shard" + shard.index(), shard.primary().jdbcUrl());
      b.replica("shard" + shard.index(), shard.replica(0).jdbcUrl());
    }
    return b;
  }

  @AfterAll
  static void stop() {
    if (sessionFactory != null) {
      sessionFactory.close();
    }
  }

  @Test
  void aPartReadsFromTheReplicaWhenItIsHealthyAndFromThePrimaryOtherwiseWithoutASessionPerShard(PostgresTopology pg) {
    shards.scatter().createQuery(PORTS, Integer.class).getResultList(); // warm up: plans and pools
    long sessionsBefore = sessionFactory.getStatistics().getSessionOpenCount();
    List<Integer> ports = shards.scatter().createQuery(PORTS, Integer.class).getResultList();
    long sessions = sessionFactory.getStatistics().getSessionOpenCount() - sessionsBefore;
    assertEquals(20, ports.size(), "a row of every sale");
    assertEquals(Set.of(pg.shard(0).replica(0).port(), pg.shard(1).replica(0).port()), new HashSet<>(ports),
        "both parts were read on the replicas");
    // the parts are bound once, by one session that takes no connection; none is opened per shard
    assertTrue(sessions <= 1, "sessions opened for a query over 2 shards: " + sessions);

    PostgresNode replica = pg.shard(1).replica(0);
    replica.kill();
    try {
      shards.checkReplicasNow();
      List<Integer> fallenBack = shards.scatter().createQuery(PORTS, Integer.class).getResultList();
      assertEquals(20, fallenBack.size(), "a row of every sale");
      assertEquals(Set.of(pg.shard(0).replica(0).port(), pg.shard(1).primary().port()), new HashSet<>(fallenBack),
          "shard1's part was read on its primary once its replica was gone");
    } finally {
      replica.start();
    }
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
    await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
      shards.checkReplicasNow();
      return new HashSet<>(shards.scatter().createQuery(PORTS, Integer.class).getResultList())
          .contains(pg.shard(1).replica(0).port());
    });
  }

  @Test
  void aLatePartIsCancelledOnItsServerAtTheDeadline(PostgresTopology pg) {
    ScatterResult<Long> partial = shards.scatter().createQuery(STUCK, Long.class).deadline(Duration.ofMillis(1500))
        .onShardFailure(ShardFailurePolicy.PARTIAL).getResult();
    assertEquals(Set.of("shard1"), partial.missingShards().keySet(), partial.missingShards().toString());
    assertTrue(partial.missingShards().get("shard1").contains("deadline"), partial.missingShards().toString());
    assertTrue(partial.elapsed().toMillis() < 15_000, "returned after " + partial.elapsed().toMillis() + " ms");
    // the sleeping statement is cancelled on the server that ran it, long before its 20 s would end
    await().atMost(Duration.ofSeconds(8)).until(() -> stuckStatements(pg.shard(1)) == 0);
  }

  /**
   * A deadline further away than the pools' server-side {@code statement_timeout} (10 s by
   * default, 3 s in this unit so that the test does not wait out the default) sets no cancel timer
   * in the driver: the server ends the statement first, and the part fails at that timeout instead
   * of running for the 20 s it asked to sleep.
   */
  @Test
  void aPartWhoseDeadlineIsBeyondTheServersStatementTimeoutIsEndedByTheServer(PostgresTopology pg) {
    ScatterResult<Long> partial;
    try (SessionFactory shortTimeouts = builder(pg)
        .property(ShardwiseSettings.PRIMARY_PREFIX + ShardwiseSettings.STATEMENT_TIMEOUT_MS, "3000")
        .property(ShardwiseSettings.REPLICA_PREFIX + ShardwiseSettings.STATEMENT_TIMEOUT_MS, "3000")
        .buildSessionFactory()) {
      partial = ShardedSessions.of(shortTimeouts).scatter().createQuery(STUCK, Long.class)
          .deadline(Duration.ofSeconds(60)).onShardFailure(ShardFailurePolicy.PARTIAL).getResult();
    }
    assertEquals(Set.of("shard1"), partial.missingShards().keySet(), partial.missingShards().toString());
    assertTrue(partial.missingShards().get("shard1").contains("statement_timeout"), partial.missingShards().toString());
    assertTrue(partial.elapsed().toMillis() < 19_000, "returned after " + partial.elapsed().toMillis() + " ms");
    await().atMost(Duration.ofSeconds(8)).until(() -> stuckStatements(pg.shard(1)) == 0);
  }

  @Test
  void anUnreachableShardFailsThePartWithTheExceptionASessionsPartFailsWith(PostgresTopology pg) {
    PostgresShard shard1 = pg.shard(1);
    shard1.replica(0).kill();
    shard1.primary().kill();
    try {
      ShardUnavailableException bySession = assertThrows(ShardUnavailableException.class,
          () -> shards.forShard("shard1").readOnly().fromSession(s -> s.createNativeQuery("select 1", Integer.class)
              .getSingleResult()));
      ScatterGatherException e = assertThrows(ScatterGatherException.class, () -> shards.scatter()
          .createQuery("select count(s) from Sale s", Long.class).deadline(Duration.ofSeconds(10)).getResultList());
      assertEquals(Set.of("shard1"), e.missingShards().keySet(), e.getMessage());
      assertTrue(e.missingShards().get("shard1").startsWith("failed: ShardUnavailableException: Shard"),
          e.missingShards().toString());
      ShardUnavailableException byPart = causeOfType(e, ShardUnavailableException.class);
      assertNotNull(byPart, "the part's own failure is the cause: " + e);
      assertEquals("shard1", byPart.shardId());
      assertEquals(bySession.shardId(), byPart.shardId());
      assertEquals(bySession.node(), byPart.node(), "both failed on the same server: " + bySession.getMessage()
          + " / " + byPart.getMessage());
    } finally {
      shard1.primary().start();
      shard1.replica(0).start();
    }
    await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
      shards.checkReplicasNow();
      return shards.scatter().createQuery("select count(s) from Sale s", Long.class).getSingleResult() == 20L;
    });
  }

  private static long stuckStatements(PostgresShard shard) throws SQLException {
    long active = 0;
    for (PostgresNode node : shard.nodes()) {
      try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE state = 'active'"
              + " AND query LIKE '%part_stuck%' AND pid <> pg_backend_pid()")) {
        rs.next();
        active += rs.getLong(1);
      }
    }
    return active;
  }

  private static <E extends Throwable> E causeOfType(Throwable error, Class<E> type) {
    for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }
}
