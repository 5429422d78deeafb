package io.shardwise.hibernate.scatter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.globalindex.BackfillProgress;
import io.shardwise.hibernate.globalindex.GlobalIndexUniqueException;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import org.hibernate.SessionFactory;
import org.hibernate.stat.Statistics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code @GlobalIndex} on three shards: ordered writes, verified reads, uniqueness, backfill. */
@ShardedPostgres(shards = 3, scope = ShardedPostgres.Scope.RUN)
class GlobalIndexTest {
  private static final String TABLE = "shardwise.gidx_customer_email";
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;

  @BeforeAll
  static void start(PostgresTopology pg) {
    Shardwise.Builder b = Shardwise.configure().credentials("postgres", null).entities(Customer.class).schema("create")
        .property("hibernate.generate_statistics", "true");
    for (PostgresShard shard : pg.shards()) {
      b.shard("shard" + shard.index(), shard.primary().jdbcUrl());
    }
    sessionFactory = b.buildSessionFactory();
    shards = ShardedSessions.of(sessionFactory);
  }

  @AfterAll
  static void stop() {
    if (sessionFactory != null) {
      sessionFactory.close();
    }
  }

  @BeforeEach
  void thirtyCustomers(PostgresTopology pg) throws SQLException {
    for (PostgresShard shard : pg.shards()) {
      ScatterFixture.execute(shard, "TRUNCATE customer");
      ScatterFixture.execute(shard, "DO $$ BEGIN IF to_regclass('" + TABLE + "') IS NOT NULL THEN TRUNCATE " + TABLE
          + "; END IF; END $$");
    }
    for (long id = 1; id <= 30; id++) {
      Customer c = new Customer(id, "c" + id + "@example.com");
      shards.forKey(id).inTransaction(s -> s.persist(c));
    }
  }

  private static int shardIndex(Object key) {
    return Integer.parseInt(shards.shardFor(key).substring("shard".length()));
  }

  private static long indexRows(PostgresShard shard, String email) throws SQLException {
    return ScatterFixture.count(shard, "SELECT count(*) FROM " + TABLE + " WHERE value = '" + email + "'");
  }

  @Test
  void eachIndexRowLivesOnTheShardOfItsValueAndLeadsToTheEntity(PostgresTopology pg) throws SQLException {
    int spread = 0;
    for (long id = 1; id <= 30; id++) {
      String email = "c" + id + "@example.com";
      Optional<Customer> found = shards.findBy(Customer.class, "email", email);
      assertEquals(id, found.orElseThrow().getId());
      for (PostgresShard shard : pg.shards()) {
        assertEquals(shard.index() == shardIndex(email) ? 1 : 0, indexRows(shard, email), email + " on " + shard.index());
      }
      spread += shardIndex(email) != shardIndex(id) ? 1 : 0;
    }
    assertTrue(spread > 0, "some index rows live on another shard than their entity");
  }

  @Test
  void aStaleIndexRowNeverReturnsAWrongEntity(PostgresTopology pg) throws SQLException {
    String ghost = "ghost@example.com";
    ScatterFixture.execute(pg.shard(shardIndex(ghost)), "INSERT INTO " + TABLE
        + " (value, shard_key, entity_id) VALUES ('" + ghost + "', '3', '3')");
    assertEquals(Optional.empty(), shards.findBy(Customer.class, "email", ghost));
    assertEquals(List.of(), shards.findAllBy(Customer.class, "email", ghost));
  }

  @Test
  void candidatesOnSeveralShardsAreVerifiedWithOneSessionPerShardNotOnePerCandidate(PostgresTopology pg)
      throws SQLException {
    String crowded = "crowded@example.com";
    shards.forKey(13L).inTransaction(s -> s.find(Customer.class, 13L).setEmail(crowded));
    // twelve more candidates: old rows left behind by transactions that did not keep the value
    StringBuilder stale = new StringBuilder();
    for (long id = 1; id <= 12; id++) {
      stale.append(id == 1 ? "" : ", ").append("('").append(crowded).append("', '").append(id).append("', '")
          .append(id).append("', now() - interval '1 hour')");
    }
    ScatterFixture.execute(pg.shard(shardIndex(crowded)), "INSERT INTO " + TABLE
        + " (value, shard_key, entity_id, created_at) VALUES " + stale);
    Set<String> owners = LongStream.rangeClosed(1, 13).mapToObj(shards::shardFor).collect(Collectors.toSet());
    assertEquals(3, owners.size(), "the thirteen candidates live on all three shards");

    Statistics statistics = sessionFactory.getStatistics();
    long sessionsBefore = statistics.getSessionOpenCount();
    List<Customer> found = shards.findAllBy(Customer.class, "email", crowded);
    long sessions = statistics.getSessionOpenCount() - sessionsBefore;

    assertEquals(List.of(13L), found.stream().map(Customer::getId).toList(), "only the verified holder");
    assertEquals(owners.size(), sessions, "one session per owning shard for 13 candidates");
  }

  @Test
  void anUpdateMovesTheRowAfterCommitAndADeleteRemovesIt(PostgresTopology pg) throws SQLException {
    shards.forKey(5L).inTransaction(s -> s.find(Customer.class, 5L).setEmail("five@example.com"));
    assertEquals(5L, shards.findBy(Customer.class, "email", "five@example.com").orElseThrow().getId());
    assertEquals(Optional.empty(), shards.findBy(Customer.class, "email", "c5@example.com"));
    assertEquals(0, indexRows(pg.shard(shardIndex("c5@example.com")), "c5@example.com"));

    shards.forKey(6L).inTransaction(s -> s.remove(s.find(Customer.class, 6L)));
    assertEquals(Optional.empty(), shards.findBy(Customer.class, "email", "c6@example.com"));
    assertEquals(0, indexRows(pg.shard(shardIndex("c6@example.com")), "c6@example.com"));
  }

  @Test
  void uniquenessHoldsAcrossShardsAndAnOldStaleRowIsTakenOver(PostgresTopology pg) throws SQLException {
    long other = 31;
    while (shards.shardFor(other).equals(shards.shardFor(1L))) {
      other++;
    }
    long otherId = other;
    GlobalIndexUniqueException e = assertThrows(GlobalIndexUniqueException.class,
        () -> shards.forKey(otherId).inTransaction(s -> s.persist(new Customer(otherId, "c1@example.com"))));
    assertTrue(e.getMessage().contains("[GlobalIndexUnique] Customer.email = 'c1@example.com' already belongs to"
        + " Customer#1"), e.getMessage());
    assertEquals(0, ScatterFixture.count(pg.shard(shardIndex(otherId)), "SELECT count(*) FROM customer WHERE id = "
        + otherId));

    // a row left by a transaction that rolled back long ago does not block the value
    String taken = "taken@example.com";
    ScatterFixture.execute(pg.shard(shardIndex(taken)), "INSERT INTO " + TABLE + " (value, shard_key, entity_id,"
        + " created_at) VALUES ('" + taken + "', '999', '999', now() - interval '1 hour')");
    shards.forKey(otherId).inTransaction(s -> s.persist(new Customer(otherId, taken)));
    assertEquals(otherId, shards.findBy(Customer.class, "email", taken).orElseThrow().getId());
    assertEquals(1, indexRows(pg.shard(shardIndex(taken)), taken));
  }

  @Test
  void backfillIndexesExistingRowsAndReportsProgress(PostgresTopology pg) throws SQLException {
    for (PostgresShard shard : pg.shards()) {
      ScatterFixture.execute(shard, "TRUNCATE " + TABLE);
    }
    assertEquals(Optional.empty(), shards.findBy(Customer.class, "email", "c7@example.com"));
    List<BackfillProgress> progress = new ArrayList<>();
    long indexed = shards.backfillGlobalIndex(Customer.class, "email", progress::add);
    assertEquals(30, indexed);
    progress.forEach(p -> System.out.println("backfill " + p));
    assertEquals(30, progress.stream().filter(p -> p.done() == p.total()).mapToLong(BackfillProgress::done).sum());
    for (long id = 1; id <= 30; id++) {
      assertEquals(id, shards.findBy(Customer.class, "email", "c" + id + "@example.com").orElseThrow().getId());
    }
  }
}
