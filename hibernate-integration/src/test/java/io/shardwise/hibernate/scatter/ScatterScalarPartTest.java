package io.shardwise.hibernate.scatter;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Scatter parts that return scalars only (aggregates, grouped or not, with no parameter) run as one
 * plain JDBC statement per shard instead of a Hibernate query: the answers, and the Java type of
 * every value (enums by name and ordinal, dates, decimals, booleans), must be those of the same
 * query on one unsharded database; Hibernate must not have executed a query for them, while a
 * query with a parameter still goes through Hibernate; and the deadline still cancels a stuck
 * shard's statement on the server.
 */
@ShardedPostgres(shards = 3)
class ScatterScalarPartTest {
  private static final String[] SCALAR_QUERIES = {
      "select count(p) from Parcel p",
      "select count(p), sum(p.weight), min(p.sentOn), max(p.sentOn) from Parcel p",
      "select avg(p.weight), max(p.state), min(p.size), count(distinct p.size) from Parcel p",
      "select p.state, count(p), sum(p.weight) from Parcel p group by p.state order by p.state",
      "select p.size, p.fragile, count(p), max(p.weight) from Parcel p group by p.size, p.fragile order by 1, 2",
      "select p.sentOn, count(p) from Parcel p group by p.sentOn having count(p) > 1 order by p.sentOn desc",
      "select count(p) from Parcel p where p.state = io.shardwise.hibernate.scatter.Parcel.State.DELIVERED"};

  private static SessionFactory sharded;
  private static SessionFactory unsharded;
  private static ShardedSessions shards;

  @BeforeAll
  static void start(PostgresTopology pg) throws SQLException {
    Shardwise.Builder b = Shardwise.configure().credentials("postgres", null).entities(Parcel.class).schema("create")
        .property("hibernate.generate_statistics", "true");
    for (PostgresShard shard : pg.shards()) {
      b.shard("shard" + shard.index(), shard.primary().jdbcUrl());
    }
    sharded = b.buildSessionFactory();
    shards = ShardedSessions.of(sharded);
    try (Connection c = pg.shard(0).primary().dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_database WHERE datname = 'parcels'")) {
      rs.next();
      if (rs.getLong(1) == 0) {
        s.execute("CREATE DATABASE parcels");
      }
    }
    unsharded = new Configuration().addAnnotatedClass(Parcel.class)
        .setProperty("jakarta.persistence.jdbc.url", pg.shard(0).primary().jdbcUrl("parcels"))
        .setProperty("jakarta.persistence.jdbc.user", "postgres")
        .setProperty("hibernate.hbm2ddl.auto", "create")
        .buildSessionFactory();
    Random random = new Random(31);
    List<Parcel> parcels = new ArrayList<>();
    for (long id = 1; id <= 150; id++) {
      parcels.add(new Parcel(id, 1 + random.nextInt(30), Parcel.State.values()[random.nextInt(3)],
          Parcel.Size.values()[random.nextInt(3)], BigDecimal.valueOf(random.nextInt(100_000), 3),
          LocalDate.of(2026, 11, 1 + random.nextInt(20)), random.nextBoolean()));
    }
    for (Parcel p : parcels) {
      shards.forKey(senderOf(p)).inTransaction(s -> s.persist(p));
    }
    unsharded.inTransaction(s -> parcels.forEach(s::persist));
    for (int i = 0; i < 3; i++) {
      assertTrue(ScatterFixture.count(pg.shard(i), "SELECT count(*) FROM parcel") > 0, "shard " + i + " holds parcels");
      ScatterFixture.execute(pg.shard(i), "CREATE OR REPLACE FUNCTION parcel_stuck() RETURNS int IMMUTABLE"
          + " LANGUAGE sql AS $$ SELECT 1 FROM pg_sleep(" + (i == 2 ? 20 : 0) + ") $$");
    }
  }

  private static long senderOf(Parcel p) {
    try {
      java.lang.reflect.Field f = Parcel.class.getDeclaredField("senderId");
      f.setAccessible(true);
      return (Long) f.get(p);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  @AfterAll
  static void stop() {
    if (sharded != null) {
      sharded.close();
    }
    if (unsharded != null) {
      unsharded.close();
    }
  }

  @Test
  void scalarPartsAnswerWithTheValuesAndTypesOfOneDatabaseAndNoHibernateQuery() {
    for (String hql : SCALAR_QUERIES) {
      List<List<Object>> expected = typed(unsharded.fromSession(s -> s.createSelectionQuery(hql, Object[].class)
          .getResultList()));
      sharded.getStatistics().clear();
      List<List<Object>> actual = typed(shards.scatter().createQuery(hql, Object[].class).getResultList());
      assertEquals(expected, actual, hql);
      assertEquals(0, sharded.getStatistics().getQueryExecutionCount(),
          "every shard's part of [" + hql + "] ran as a plain statement, not a Hibernate query");
    }
  }

  @Test
  void aPartWithAParameterStillRunsThroughHibernate() {
    String hql = "select p.state, count(p) from Parcel p where p.fragile = :fragile group by p.state order by 1";
    List<List<Object>> expected = typed(unsharded.fromSession(s -> s.createSelectionQuery(hql, Object[].class)
        .setParameter("fragile", true).getResultList()));
    sharded.getStatistics().clear();
    List<List<Object>> actual = typed(shards.scatter().createQuery(hql, Object[].class).setParameter("fragile", true)
        .getResultList());
    assertEquals(expected, actual, hql);
    assertEquals(3, sharded.getStatistics().getQueryExecutionCount(), "one Hibernate query per shard");
  }

  @Test
  void aStuckShardsScalarPartIsNamedUnderPartialAndCancelledOnTheServerAtTheDeadline(PostgresTopology pg)
      throws SQLException {
    String stuck = "select count(p) from Parcel p where cast(function('parcel_stuck') as Integer) = 1";
    // the first run plans the query and warms the pools; the deadline counts from before the plan
    shards.scatter().createQuery(stuck, Long.class).deadline(Duration.ofSeconds(5))
        .onShardFailure(ShardFailurePolicy.PARTIAL).getResult();
    sharded.getStatistics().clear();
    ScatterResult<Long> partial = shards.scatter().createQuery(stuck, Long.class).deadline(Duration.ofMillis(1500))
        .onShardFailure(ShardFailurePolicy.PARTIAL).getResult();
    assertEquals(java.util.Set.of("shard2"), partial.missingShards().keySet(), partial.missingShards().toString());
    assertTrue(partial.missingShards().get("shard2").contains("deadline"), partial.missingShards().toString());
    long onTheOthers = ScatterFixture.count(pg.shard(0), "SELECT count(*) FROM parcel")
        + ScatterFixture.count(pg.shard(1), "SELECT count(*) FROM parcel");
    assertEquals(List.of(onTheOthers), partial.rows());
    assertEquals(0, sharded.getStatistics().getQueryExecutionCount(), "the parts ran as plain statements");
    await().atMost(Duration.ofSeconds(10)).until(() -> ScatterFixture.count(pg.shard(2),
        "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%parcel_stuck%'"
            + " AND pid <> pg_backend_pid()") == 0);
  }

  /** Rows as lists of (class, value) pairs in a stable order, so that a value of another type never equals. */
  private static List<List<Object>> typed(List<Object[]> rows) {
    List<List<Object>> out = new ArrayList<>();
    for (Object[] row : rows) {
      List<Object> typedRow = new ArrayList<>();
      for (Object v : row) {
        typedRow.add(v == null ? null : v.getClass().getName());
        typedRow.add(v instanceof BigDecimal d ? d.stripTrailingZeros().toPlainString() : v);
      }
      out.add(typedRow);
    }
    out.sort(Comparator.comparing(Object::toString));
    return out;
  }

}
