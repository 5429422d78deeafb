package io.shardwise.hibernate;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import jakarta.persistence.LockModeType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A shard server that goes away while a session uses it is a shard failure, never an answer: a
 * backend ended by {@code pg_terminate_backend}, a primary killed or a replica stopped while a
 * statement runs, inside and outside transactions, in find (with and without a row lock, with the
 * transaction already marked for rollback), queries, flush and commit — each surfaces as
 * {@link ShardUnavailableException} naming the shard and the server, with the driver's SQLSTATE,
 * and leaves the unit of work failed.
 */
@ShardedPostgres(shards = 2, replicas = 1)
class ShardFailureTest {
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;
  private static long key;

  @BeforeAll
  static void start(PostgresTopology pg) {
    Shardwise.Builder b = Shardwise.configure().credentials("postgres", null).schema("create")
        .entities(ShopFixture.ENTITIES).property(ShardwiseSettings.CONNECTION_TIMEOUT, "1000");
    for (PostgresShard shard : pg.shards()) {
      b.shard(ShopFixture.shardId(shard.index()), shard.primary().jdbcUrl())
          .replica(ShopFixture.shardId(shard.index()), shard.replica(0).jdbcUrl());
    }
    sessionFactory = b.buildSessionFactory();
    shards = ShardedSessions.of(sessionFactory);
    for (long k = 1; ; k++) {
      if (shards.shardFor(k).equals("shard1")) {
        key = k;
        break;
      }
    }
  }

  @AfterAll
  static void stop() {
    sessionFactory.close();
  }

  @BeforeEach
  void data(PostgresTopology pg) throws SQLException {
    ShopFixture.executeOnEveryShard(pg, "TRUNCATE order_item, purchase_order, merchant, country");
    shards.forKey(key).inTransaction(s -> s.persist(new Merchant(key, "before", null)));
  }

  /** Every server serves again, and Shardwise reaches it, before the next test. */
  @AfterEach
  void everyServerBack(PostgresTopology pg) {
    for (PostgresShard shard : pg.shards()) {
      if (!shard.primary().isRunning()) {
        shard.primary().start();
      }
      if (!shard.replica(0).isRunning()) {
        shard.replica(0).start();
      }
    }
    // in a transaction, so that the primary answers (outside one, a replica may answer while the
    // primary's circuit breaker, opened by the test's own calls to the stopped server, awaits its probe)
    await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> "before".equals(
        shards.forKey(key).fromTransaction(s -> s.find(Merchant.class, key)).getName()));
  }

  @Test
  void aFindAfterTheBackendWasTerminatedInsideATransactionIsAShardFailure(PostgresTopology pg) {
    PostgresNode primary = pg.shard(1).primary();
    ShardUnavailableException e = assertThrows(ShardUnavailableException.class, () -> shards.forKey(key)
        .inTransaction(s -> {
          terminate(primary, backendPid(s));
          s.find(Merchant.class, key);
        }));
    assertNamesTheServer(e, "primary", primary, "57P01");
    assertTrue(e.getMessage().startsWith("Shard 'shard1' failed while running a statement: the connection to its"
        + " primary " + primary.host() + ":" + primary.port() + " was lost (SQLSTATE 57P01"), e.getMessage());
  }

  @Test
  void aLockingFindInATransactionAlreadyMarkedForRollbackNeverAnswersNull(PostgresTopology pg) {
    PostgresNode primary = pg.shard(1).primary();
    for (boolean rollbackOnly : new boolean[] {false, true}) {
      ShardUnavailableException e = assertThrows(ShardUnavailableException.class, () -> shards.forKey(key)
          .inTransaction(s -> {
            if (rollbackOnly) {
              s.getTransaction().setRollbackOnly();
            }
            terminate(primary, backendPid(s));
            Merchant found = s.find(Merchant.class, key, LockModeType.PESSIMISTIC_WRITE);
            throw new AssertionError("find answered " + found + " instead of failing");
          }), "rollback-only: " + rollbackOnly);
      assertNamesTheServer(e, "primary", primary, "57P01");
    }
  }

  @Test
  void aQueryOutsideATransactionIsAShardFailure(PostgresTopology pg) {
    PostgresNode primary = pg.shard(1).primary();
    ShardUnavailableException e = assertThrows(ShardUnavailableException.class, () -> shards.forKey(key)
        .fromSession(s -> {
          terminate(primary, backendPid(s));
          return s.createSelectionQuery("from Merchant m where m.id = :id", Merchant.class).setParameter("id", key)
              .getResultList();
        }));
    assertNamesTheServer(e, "primary", primary, "57P01");
  }

  @Test
  void aFlushOnALostConnectionFailsAndWritesNothing(PostgresTopology pg) throws SQLException {
    PostgresNode primary = pg.shard(1).primary();
    ShardUnavailableException e = assertThrows(ShardUnavailableException.class, () -> shards.forKey(key)
        .inTransaction(s -> {
          s.find(Merchant.class, key).setName("renamed");
          terminate(primary, backendPid(s));
          s.flush();
        }));
    assertNamesTheServer(e, "primary", primary, "57P01");
    assertEquals(1, ShopFixture.count(pg.shard(1), "SELECT count(*) FROM merchant WHERE name = 'before'"));
  }

  @Test
  void aCommitOnALostConnectionSaysItsOutcomeIsUnknown(PostgresTopology pg) throws SQLException {
    PostgresNode primary = pg.shard(1).primary();
    ShardUnavailableException e = assertThrows(ShardUnavailableException.class, () -> shards.forKey(key)
        .inTransaction(s -> {
          s.find(Merchant.class, key).setName("renamed");
          s.flush();
          terminate(primary, backendPid(s));
        }));
    assertNamesTheServer(e, "primary", primary, null);
    assertTrue(e.getMessage().contains("failed while committing"), e.getMessage());
    assertTrue(e.getMessage().contains("The commit's outcome is unknown"), e.getMessage());
    assertEquals(1, ShopFixture.count(pg.shard(1), "SELECT count(*) FROM merchant WHERE name = 'before'"),
        "the server rolled the transaction back when it ended the backend");
  }

  @Test
  void aUnitOfWorkThatCaughtTheFailureCannotCarryOnAsIfWhole(PostgresTopology pg) throws SQLException {
    PostgresNode primary = pg.shard(1).primary();
    ShardUnavailableException e = assertThrows(ShardUnavailableException.class, () -> shards.forKey(key)
        .inTransaction(s -> {
          terminate(primary, backendPid(s));
          try {
            s.createSelectionQuery("from Merchant m where m.id = :id", Merchant.class).setParameter("id", key)
                .getResultList();
          } catch (ShardUnavailableException swallowed) {
            // an application that carries on regardless
          }
          s.createMutationQuery("update Merchant m set m.name = 'after' where m.id = :id").setParameter("id", key)
              .executeUpdate();
        }));
    assertTrue(e.getMessage().startsWith("Cannot run a statement on shard 'shard1': its connection to the primary "
        + primary.host() + ":" + primary.port() + " was lost earlier in this session"), e.getMessage());
    assertEquals("57P01", e.sqlState());
    assertEquals(1, ShopFixture.count(pg.shard(1), "SELECT count(*) FROM merchant WHERE name = 'before'"));
  }

  @Test
  void aPrimaryKilledWhileAStatementRunsFailsThatStatementWithTheShardsName(PostgresTopology pg) throws Exception {
    PostgresNode primary = pg.shard(1).primary();
    CompletableFuture<Object> sleeping = CompletableFuture.supplyAsync(() -> shards.forKey(key).fromTransaction(
        s -> s.createNativeQuery("select 1 from pg_sleep(60)", Integer.class).getSingleResult()));
    await().atMost(Duration.ofSeconds(30)).until(() -> activeSleeps(primary) == 1);
    primary.kill();
    ExecutionException failed = assertThrows(ExecutionException.class, () -> sleeping.get(30, TimeUnit.SECONDS));
    ShardUnavailableException e = assertInstanceOf(ShardUnavailableException.class, failed.getCause());
    assertNamesTheServer(e, "primary", primary, null);
    assertTrue(e.sqlState().startsWith("08"), "a connection exception: " + e.sqlState());
  }

  @Test
  void aReplicaStoppedDuringAReadOnlySessionIsNamedAsTheReplica(PostgresTopology pg) {
    PostgresNode replica = pg.shard(1).replica(0);
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      shards.checkReplicasNow();
      return shards.replicaStatus().stream().allMatch(ReplicaStatus::healthy);
    });
    // inside a transaction the session keeps its connection; outside one, Hibernate takes a new
    // connection per statement, and the read path would serve the find from the primary instead.
    // A session the application opened itself is not run again (the callback routes retry a read
    // once off a failed replica: ReplicaFailoverTest), so the failure reaches the caller.
    ShardUnavailableException e = assertThrows(ShardUnavailableException.class, () -> {
      try (Session s = shards.forKey(key).readOnly().openSession()) {
        s.beginTransaction();
        int port = s.createNativeQuery("select inet_server_port()", Integer.class).getSingleResult();
        assertEquals(replica.port(), port, "the read-only session is served by the replica");
        replica.stop();
        s.find(Merchant.class, key);
      }
    });
    assertNamesTheServer(e, "replica", replica, null);
  }

  // ---------------------------------------------------------------------------------------------

  private static void assertNamesTheServer(ShardUnavailableException e, String role, PostgresNode node,
      String sqlState) {
    String server = role + " " + node.host() + ":" + node.port();
    assertEquals("shard1", e.shardId(), e.getMessage());
    assertEquals(server, e.node(), e.getMessage());
    assertTrue(e.getMessage().contains(server), e.getMessage());
    assertInstanceOf(SQLException.class, e.getCause(), "the driver's exception is the cause");
    if (sqlState != null) {
      assertEquals(sqlState, e.sqlState(), e.getMessage());
    }
    assertTrue(e.getMessage().contains("SQLSTATE " + e.sqlState()), e.getMessage());
  }

  private static int backendPid(Session s) {
    return s.doReturningWork(c -> {
      try (PreparedStatement ps = c.prepareStatement("select pg_backend_pid()"); ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    });
  }

  private static void terminate(PostgresNode node, int pid) {
    try (Connection c = node.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement("select pg_terminate_backend(?, 10000)")) {
      ps.setInt(1, pid);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        assertTrue(rs.getBoolean(1), "backend " + pid + " was terminated");
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static long activeSleeps(PostgresNode node) throws SQLException {
    try (Connection c = node.dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(
        "select count(*) from pg_stat_activity where state = 'active' and query like '%pg_sleep(60)%'"
            + " and pid <> pg_backend_pid()"); ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
