package io.shardwise.hibernate;

import static io.shardwise.hibernate.BankFixture.INITIAL;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.bank.Account;
import io.shardwise.hibernate.transaction.CrossShardAbortedException;
import io.shardwise.hibernate.transaction.internal.CoordinatorCrash;
import io.shardwise.hibernate.transaction.internal.CrossShardService;
import io.shardwise.hibernate.transaction.internal.FaultInjector.Point;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two-phase commit, one fault at a time: every crash point of the coordinator, a shard lost during
 * prepare, a shard restarted between the phases, recovery racing a slow coordinator. After each,
 * recovery leaves no prepared transaction, and the transfer is on both shards or on neither.
 */
@ShardedPostgres(shards = 2)
class TwoPhaseCommitTest {
  private static final int ACCOUNTS = 6;

  private PostgresTopology pg;
  private SessionFactory sf;
  private ShardedSessions shards;
  private long a;
  private long b;

  @BeforeEach
  void bank(PostgresTopology pg) {
    this.pg = pg;
    sf = BankFixture.openWithAccounts(pg, ACCOUNTS);
    shards = ShardedSessions.of(sf);
    a = BankFixture.key(shards, "shard0", 1);
    b = BankFixture.key(shards, "shard1", 1);
  }

  @AfterEach
  void noPreparedTransactionLeft() throws Exception {
    if (sf != null) {
      sf.close();
    }
    for (PostgresNode node : pg.nodes()) {
      if (!node.isRunning()) {
        node.start();
      }
    }
    assertEquals(List.of(), BankFixture.preparedTransactions(pg));
  }

  @Test
  void aTransferCommitsOnBothShards() throws Exception {
    long decisionsBefore = countDecisions();
    BankFixture.transfer(shards, "t1", a, b, 100);

    assertEquals(Map.of("t1", 2), BankFixture.legsByTransfer(pg));
    Map<Long, Long> balances = BankFixture.balances(pg);
    assertEquals(INITIAL - 100, balances.get(a));
    assertEquals(INITIAL + 100, balances.get(b));
    assertEquals(List.of(), BankFixture.preparedTransactions(pg));
    assertEquals(decisionsBefore, countDecisions(), "a fully committed transaction leaves no decision behind");
  }

  @Test
  void workThatThrowsChangesNoShard() throws Exception {
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> BankFixture.transfer(shards, "t1", a, b, INITIAL + 1));
    assertTrue(e.getMessage().contains("insufficient funds"), e.getMessage());
    assertEquals(Map.of(), BankFixture.legsByTransfer(pg));
    assertEquals(ACCOUNTS * INITIAL, BankFixture.total(pg));
  }

  @Test
  void coordinatorDiesAfterPrepareBeforeTheDecision_anotherInstanceRollsBackAtStartup() throws Exception {
    BankFixture.service(sf).faultInjector(crashAt(Point.AFTER_PREPARE));
    assertThrows(CoordinatorCrash.class, () -> BankFixture.transfer(shards, "t1", a, b, 100));
    assertEquals(2, BankFixture.preparedTransactions(pg).size(), "both shards prepared, nothing decided");
    sf.close(); // the dead instance is gone

    sf = BankFixture.builder(pg).buildSessionFactory(); // a new instance recovers at startup
    assertEquals(List.of(), BankFixture.preparedTransactions(pg));
    assertEquals(Map.of(), BankFixture.legsByTransfer(pg));
    assertEquals(INITIAL, BankFixture.balances(pg).get(a));
    assertEquals(ACCOUNTS * INITIAL, BankFixture.total(pg));
  }

  @Test
  void coordinatorDiesAfterTheDecision_theRecoveryDaemonCommitsEverywhere() throws Exception {
    sf.close();
    sf = BankFixture.builder(pg, Duration.ofMillis(100)).buildSessionFactory();
    shards = ShardedSessions.of(sf);
    BankFixture.service(sf).faultInjector(crashAt(Point.AFTER_DECISION));

    assertThrows(CoordinatorCrash.class, () -> BankFixture.transfer(shards, "t1", a, b, 100));

    await().atMost(Duration.ofSeconds(30)).until(() -> BankFixture.preparedTransactions(pg).isEmpty());
    assertEquals(Map.of("t1", 2), BankFixture.legsByTransfer(pg));
    assertEquals(INITIAL + 100, BankFixture.balances(pg).get(b));
    assertEquals(ACCOUNTS * INITIAL, BankFixture.total(pg));
  }

  @Test
  void coordinatorDiesBetweenTwoCommits_recoveryCommitsTheOther() throws Exception {
    BankFixture.service(sf).faultInjector(crashAt(Point.AFTER_COMMIT));
    assertThrows(CoordinatorCrash.class, () -> BankFixture.transfer(shards, "t1", a, b, 100));
    assertEquals(1, BankFixture.preparedTransactions(pg).size(), "one shard committed, the other still prepared");

    CrossShardService service = BankFixture.service(sf);
    service.faultInjector(null);
    assertEquals(1, service.recoverNow().committed());
    assertEquals(Map.of("t1", 2), BankFixture.legsByTransfer(pg));
    assertEquals(ACCOUNTS * INITIAL, BankFixture.total(pg));
  }

  @Test
  void aShardKilledDuringPrepareAbortsTheTransferEverywhere() throws Exception {
    PostgresNode primary1 = pg.shard(1).primary();
    BankFixture.service(sf).faultInjector((point, gid, shard) -> {
      if (point == Point.BEFORE_PREPARE && "shard1".equals(shard)) {
        primary1.kill();
      }
    });

    CrossShardAbortedException e = assertThrows(CrossShardAbortedException.class,
        () -> BankFixture.transfer(shards, "t1", a, b, 100));
    assertTrue(e.getMessage().contains("shard 'shard1' could not prepare"), e.getMessage());
    assertTrue(e.getMessage().contains("safe to retry"), e.getMessage());

    primary1.start();
    BankFixture.service(sf).recoverNow();
    assertEquals(List.of(), BankFixture.preparedTransactions(pg));
    assertEquals(Map.of(), BankFixture.legsByTransfer(pg));
    assertEquals(ACCOUNTS * INITIAL, BankFixture.total(pg));
  }

  @Test
  void aShardRestartedAfterPrepareKeepsItsPreparedTransaction_andCommits() throws Exception {
    PostgresNode primary1 = pg.shard(1).primary();
    AtomicBoolean survivedRestart = new AtomicBoolean();
    BankFixture.service(sf).faultInjector((point, gid, shard) -> {
      if (point == Point.AFTER_PREPARE) {
        primary1.stop();
        primary1.start();
        survivedRestart.set(isPrepared(primary1, gid));
      }
    });

    BankFixture.transfer(shards, "t1", a, b, 100);

    assertTrue(survivedRestart.get(), "PostgreSQL keeps a prepared transaction across a restart");
    BankFixture.service(sf).recoverNow(); // commits on shard 1 if its stale pooled connection failed phase two
    assertEquals(List.of(), BankFixture.preparedTransactions(pg));
    assertEquals(Map.of("t1", 2), BankFixture.legsByTransfer(pg));
    assertEquals(INITIAL + 100, BankFixture.balances(pg).get(b));
  }

  @Test
  void recoveryThatAbortsFirstWins_theSlowCoordinatorRollsBack() throws Exception {
    try (SessionFactory other = BankFixture.builder(pg).buildSessionFactory()) {
      CrossShardService otherInstance = BankFixture.service(other);
      BankFixture.service(sf).faultInjector((point, gid, shard) -> {
        if (point == Point.AFTER_PREPARE) {
          // another instance's recovery, with no grace period, finds the undecided transaction first
          otherInstance.twoPhase().recover(0, 600_000);
        }
      });

      CrossShardAbortedException e = assertThrows(CrossShardAbortedException.class,
          () -> BankFixture.transfer(shards, "t1", a, b, 100));
      assertTrue(e.getMessage().contains("recovery decided to abort"), e.getMessage());
    }
    assertEquals(List.of(), BankFixture.preparedTransactions(pg));
    assertEquals(Map.of(), BankFixture.legsByTransfer(pg));
    assertEquals(ACCOUNTS * INITIAL, BankFixture.total(pg));
  }

  @Test
  void aLiveCoordinatorsFreshTransactionIsLeftAlone() throws Exception {
    try (SessionFactory other = BankFixture.builder(pg).buildSessionFactory()) {
      CrossShardService otherInstance = BankFixture.service(other);
      AtomicReference<Integer> skipped = new AtomicReference<>();
      BankFixture.service(sf).faultInjector((point, gid, shard) -> {
        if (point == Point.AFTER_PREPARE) {
          skipped.set(otherInstance.twoPhase().recover(600_000, 600_000).skipped());
        }
      });
      BankFixture.transfer(shards, "t1", a, b, 100);
      assertEquals(2, skipped.get(), "within the grace period, a live coordinator's prepared transactions are its own");
    }
    assertEquals(Map.of("t1", 2), BankFixture.legsByTransfer(pg));
  }

  @Test
  void twoKeysOnOneShardShareOneLocalTransaction() throws Exception {
    long a2 = BankFixture.key(shards, "shard0", a + 1);
    BankFixture.transfer(shards, "t1", a, a2, 10);
    assertEquals(Map.of("t1", 2), BankFixture.legsByTransfer(pg));
    assertNull(BankFixture.service(sf).twoPhase().recover(0, 0).unreachableShards().stream().findAny().orElse(null));
  }

  @Test
  void withoutAControlDatabaseAtomicallySaysWhatToConfigure() {
    try (SessionFactory plain = ShopFixture.sessionFactory(pg, "none")) {
      ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class,
          () -> ShardedSessions.of(plain).atomically(tx -> tx.on(1L, s -> s.find(Account.class, 1L))));
      assertTrue(e.getMessage().contains("set shardwise.control.url"), e.getMessage());
      assertFalse(e.getMessage().isBlank());
    }
  }

  // ---------------------------------------------------------------------------------------

  private static io.shardwise.hibernate.transaction.internal.FaultInjector crashAt(Point at) {
    return (point, gid, shard) -> {
      if (point == at) {
        throw new CoordinatorCrash("coordinator dies at " + at + " of " + gid);
      }
    };
  }

  private static boolean isPrepared(PostgresNode node, String gid) {
    try (Connection c = node.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_prepared_xacts WHERE gid = ?")) {
      ps.setString(1, gid);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private long countDecisions() throws Exception {
    return ShopFixture.count(pg.shard(0), "SELECT count(*) FROM shardwise.global_tx");
  }
}
