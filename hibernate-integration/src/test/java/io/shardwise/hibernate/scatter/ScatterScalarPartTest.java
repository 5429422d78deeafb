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
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.hibernate.SessionFactory;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Scatter parts that return scalars only (aggregates, grouped or not, and projections of basic
 * values, with or without parameters, top-N and keyset pages) run as one plain JDBC statement per
 * shard instead of a Hibernate query: the answers, their order, and the Java type of every value
 * (enums by name and ordinal, dates, decimals, booleans), must be those of the same query on one
 * unsharded database, for parameters of every kind (null, enum, date, {@code in (:list)});
 * Hibernate must not have executed a query for them; min, max and order over an enum follow how it
 * is stored; and the deadline still cancels a stuck shard's statement on the server.
 */
@ShardedPostgres(shards = 3, scope = ShardedPostgres.Scope.RUN)
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
  void parameterizedCountsAndGroupsRunAsPlainStatementsWithTheAnswersOfOneDatabase() {
    List<Object[]> cases = List.of(
        new Object[] {"select count(p) from Parcel p where p.fragile = :fragile", Map.of("fragile", true)},
        new Object[] {"select p.state, count(p) from Parcel p where p.fragile = :fragile group by p.state order by 1",
            Map.of("fragile", false)},
        new Object[] {"select count(p), sum(p.weight) from Parcel p where p.state = :state",
            Map.of("state", Parcel.State.IN_TRANSIT)},
        new Object[] {"select p.size, count(p) from Parcel p where p.size <> :size group by p.size order by 1",
            Map.of("size", Parcel.Size.MEDIUM)},
        new Object[] {"select count(p), max(p.weight) from Parcel p where p.sentOn between :from and :to",
            Map.of("from", LocalDate.of(2026, 11, 4), "to", LocalDate.of(2026, 11, 9))},
        new Object[] {"select p.sentOn, count(p) from Parcel p where p.state in (:states) group by p.sentOn order by 1",
            Map.of("states", List.of(Parcel.State.LABELLED, Parcel.State.DELIVERED))},
        new Object[] {"select count(p) from Parcel p where p.state in (:states)",
            Map.of("states", List.of(Parcel.State.DELIVERED))},
        new Object[] {"select count(p) from Parcel p where p.id in (:ids) and p.weight > :least",
            Map.of("ids", List.of(3L, 14L, 15L, 92L, 65L, 35L, 89L, 79L), "least", new BigDecimal("1.5"))},
        new Object[] {"select count(p) from Parcel p where p.state = :state or :state is null",
            nullable("state")},
        new Object[] {"select count(p) from Parcel p where p.sentOn = :day", nullable("day")});
    for (Object[] c : cases) {
      String hql = (String) c[0];
      @SuppressWarnings("unchecked")
      Map<String, Object> parameters = (Map<String, Object>) c[1];
      assertSameAsOneDatabaseWithoutHibernateQueries(hql, parameters, -1, null);
    }
  }

  @Test
  void topNAndKeysetPagesOfProjectionsRunAsPlainStatementsWithTheAnswersOfOneDatabase() {
    String top = "select p.id, p.weight, p.state from Parcel p where p.state <> :state order by p.weight desc, p.id";
    List<Object[]> page = assertSameAsOneDatabaseWithoutHibernateQueries(top, Map.of("state", Parcel.State.LABELLED),
        20, null);
    assertEquals(20, page.size());
    String keyset = "select p.sentOn, p.id from Parcel p where p.size in (:sizes) order by p.sentOn, p.id";
    Map<String, Object> sizes = Map.of("sizes", List.of(Parcel.Size.SMALL, Parcel.Size.LARGE));
    Object[] after = null;
    int pages = 0;
    int rows = 0;
    while (true) {
      List<Object[]> next = assertSameAsOneDatabaseWithoutHibernateQueries(keyset, sizes, 15, after);
      if (next.isEmpty()) {
        break;
      }
      rows += next.size();
      Object[] last = next.get(next.size() - 1);
      after = new Object[] {last[0], last[1]};
      pages++;
    }
    assertTrue(pages > 2, "several keyset pages, got " + pages);
    long expected = unsharded.fromSession(s -> s.createSelectionQuery("select count(p) from Parcel p where p.size in"
        + " (:sizes)", Long.class).setParameter("sizes", sizes.get("sizes")).getSingleResult());
    assertEquals(expected, rows, "the keyset pages cover every row once");
  }

  @Test
  void minMaxAndOrderOverEnumsFollowTheirStorageAsOneDatabaseDoes() {
    // few rows per window: each shard's own extreme differs from the others', so the merge must compare
    // STRING-mapped states by name and ORDINAL-mapped sizes by ordinal, as PostgreSQL does on one node
    String extremes = "select min(p.state), max(p.state), min(p.size), max(p.size) from Parcel p"
        + " where p.id between :lo and :hi";
    for (long lo = 1; lo <= 150; lo += 3) {
      assertSameAsOneDatabaseWithoutHibernateQueries(extremes, Map.of("lo", lo, "hi", lo + 2), -1, null);
    }
    String grouped = "select p.state, p.size, count(p) from Parcel p where p.id > :lo group by p.state, p.size"
        + " order by p.state desc, p.size";
    assertSameAsOneDatabaseWithoutHibernateQueries(grouped, Map.of("lo", 10L), -1, null);
    String top = "select p.id, p.state from Parcel p where p.fragile = :fragile order by p.state, p.id";
    assertSameAsOneDatabaseWithoutHibernateQueries(top, Map.of("fragile", true), 25, null);
    // and through Hibernate's own parts (an entity selected): the same order
    String entities = "from Parcel p where p.id between :lo and :hi order by p.state desc, p.id";
    List<Object> expected = unsharded.fromSession(s -> s.createSelectionQuery("select p.id " + entities, Object.class)
        .setParameter("lo", 20L).setParameter("hi", 60L).getResultList());
    List<Object> actual = shards.scatter().createQuery(entities, Parcel.class).setParameter("lo", 20L)
        .setParameter("hi", 60L).getResultList().stream().map(p -> (Object) idOf(p)).toList();
    assertEquals(expected, actual, entities);
  }

  /**
   * Runs {@code hql} on the shards and on one database, with {@code parameters}, {@code maxResults}
   * rows at most (unless -1), after {@code after} (unless null); asserts the same rows, in order when
   * the query orders, every shard answering and no Hibernate query executed. Returns the rows.
   */
  private static List<Object[]> assertSameAsOneDatabaseWithoutHibernateQueries(String hql,
      Map<String, Object> parameters, int maxResults, Object[] after) {
    String where = after == null ? hql : hql.replace(" order by p.sentOn, p.id",
        " and (p.sentOn > :afterDay or p.sentOn = :afterDay and p.id > :afterId) order by p.sentOn, p.id");
    List<Object[]> expected = unsharded.fromSession(s -> {
      var query = s.createSelectionQuery(where, Object[].class);
      parameters.forEach(query::setParameter);
      if (after != null) {
        query.setParameter("afterDay", after[0]).setParameter("afterId", after[1]);
      }
      if (maxResults >= 0) {
        query.setMaxResults(maxResults);
      }
      return query.getResultList();
    });
    sharded.getStatistics().clear();
    ScatterQuery<Object[]> query = shards.scatter().createQuery(hql, Object[].class);
    parameters.forEach(query::setParameter);
    if (maxResults >= 0) {
      query.setMaxResults(maxResults);
    }
    if (after != null) {
      query.after(after);
    }
    ScatterResult<Object[]> result = query.getResult();
    String what = hql + " " + parameters + (after == null ? "" : " after " + Arrays.toString(after));
    boolean ordered = hql.contains(" order by ");
    List<List<Object>> expectedRows = typed(expected, !ordered);
    assertEquals(expectedRows, typed(result.rows(), !ordered), what);
    assertEquals(0, sharded.getStatistics().getQueryExecutionCount(),
        "every shard's part of [" + what + "] ran as a plain statement, not a Hibernate query");
    assertEquals(java.util.Set.of("shard0", "shard1", "shard2"), result.shardRows().keySet(), what);
    assertTrue(result.missingShards().isEmpty(), what);
    return result.rows();
  }

  private static Map<String, Object> nullable(String name) {
    Map<String, Object> parameters = new java.util.HashMap<>();
    parameters.put(name, null);
    return parameters;
  }

  private static Object idOf(Parcel p) {
    try {
      java.lang.reflect.Field f = Parcel.class.getDeclaredField("id");
      f.setAccessible(true);
      return f.get(p);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
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
    return typed(rows, true);
  }

  private static List<List<Object>> typed(List<Object[]> rows, boolean sorted) {
    List<List<Object>> out = new ArrayList<>();
    for (Object[] row : rows) {
      List<Object> typedRow = new ArrayList<>();
      for (Object v : row) {
        typedRow.add(v == null ? null : v.getClass().getName());
        typedRow.add(v instanceof BigDecimal d ? d.stripTrailingZeros().toPlainString() : v);
      }
      out.add(typedRow);
    }
    if (sorted) {
      out.sort(Comparator.comparing(Object::toString));
    }
    return out;
  }

}
