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
import io.shardwise.hibernate.transaction.TransactionInDoubtException;
import io.shardwise.hibernate.transaction.internal.CoordinatorCrash;
import io.shardwise.hibernate.transaction.internal.CrossShardService;
import io.shardwise.hibernate.transaction.internal.FaultInjector.Point;
import io.shardwise.hibernate.transaction.internal.TwoPhaseCommit;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two-phase commit, one fault at a time: every crash point of the coordinator, a shard lost during
 * prepare, the deciding shard lost before its commit, a shard restarted between the phases, recovery
 * racing a slow coordinator, a prepared transaction finished behind the coordinator's back. After
 * each, recovery leaves no prepared transaction, and the transfer is on both shards or on neither.
 *
 * <p>The transfer locks the lower account id first, so the shard of the higher id is the last one
 * touched: the decider, which commits in one phase; the other shard is the prepared one.
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
    List<String> gids = new ArrayList<>();
    BankFixture.service(sf).faultInjector((point, gid, shard) -> {
      if (point == Point.AFTER_PREPARE) {
        gids.add(gid);
      }
    });
    BankFixture.transfer(shards, "t1", a, b, 100);

    assertEquals(Map.of("t1", 2), BankFixture.legsByTransfer(pg));
    Map<Long, Long> balances = BankFixture.balances(pg);
    assertEquals(INITIAL - 100, balances.get(a));
    assertEquals(INITIAL + 100, balances.get(b));
    assertEquals(List.of(), BankFixture.preparedTransactions(pg));
    assertEquals(1, gids.size());
    assertTrue(gids.get(0).matches("sw:[0-9a-f]{16}:" + decider() + ":[0-9a-f]{12}:[1-9][0-9]*"), gids.get(0));
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
  void recoveryRightAfterTheServersEndedEveryConnectionFinishesItsPassOnNewOnes() throws Exception {
    CrossShardService service = BankFixture.service(sf);
    service.faultInjector(crashAt(Point.AFTER_DECISION));
    assertThrows(CoordinatorCrash.class, () -> BankFixture.transfer(shards, "t1", a, b, 100));
    service.faultInjector(null);
    // every pooled connection, the control database's and the shards', was used a moment ago: the
    // pools hand them out unchecked, though their servers have ended them
    for (PostgresNode node : pg.nodes()) {
      try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement()) {
        s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            + " WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'");
      }
    }

    TwoPhaseCommit.RecoveryResult pass = service.recoverNow();

    assertEquals(List.of(), pass.unreachableShards(), "no shard is reported unreachable for a connection it ended");
    assertEquals(1, pass.committed(), "the decided transfer is committed on its prepared shard in this pass");
    assertEquals(List.of(), BankFixture.preparedTransactions(pg));
    assertEquals(Map.of("t1", 2), BankFixture.legsByTransfer(pg));
  }

  @Test
  void coordinatorDiesAfterPrepareBeforeTheDecision_anotherInstanceRollsBackAtStartup() throws Exception {
    BankFixture.service(sf).faultInjector(crashAt(Point.AFTER_PREPARE));
    assertThrows(CoordinatorCrash.class, () -> BankFixture.transfer(shards, "t1", a, b, 100));
    assertEquals(List.of(preparedShardIndex()), preparedShardIndexes(),
        "the non-deciding shard prepared, the decider never committed");
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
  void coordinatorDiesRightAfterTheDeciderCommitted_recoveryCommitsThePreparedShard() throws Exception {
    BankFixture.service(sf).faultInjector(crashAt(Point.AFTER_DECISION));
    assertThrows(CoordinatorCrash.class, () -> BankFixture.transfer(shards, "t1", a, b, 100));
    assertEquals(List.of(preparedShardIndex()), preparedShardIndexes(), "the decider committed, the other is prepared");

    CrossShardService service = BankFixture.service(sf);
    service.faultInjector(null);
    assertEquals(1, service.recoverNow().committed());
    assertEquals(Map.of("t1", 2), BankFixture.legsByTransfer(pg));
    assertEquals(ACCOUNTS * INITIAL, BankFixture.total(pg));
  }

  @Test
  void aShardKilledDuringPrepareAbortsTheTransferEverywhere() throws Exception {
    PostgresNode prepared = pg.shard(preparedShardIndex()).primary();
    BankFixture.service(sf).faultInjector((point, gid, shard) -> {
      if (point == Point.BEFORE_PREPARE) {
        prepared.kill();
      }
    });

    CrossShardAbortedException e = assertThrows(CrossShardAbortedException.class,
        () -> BankFixture.transfer(shards, "t1", a, b, 100));
    assertTrue(e.getMessage().contains("shard 'shard" + preparedShardIndex() + "' could not prepare"), e.getMessage());
    assertTrue(e.getMessage().contains("safe to retry"), e.getMessage());

    prepared.start();
    BankFixture.service(sf).recoverNow();
    assertEquals(List.of(), BankFixture.preparedTransactions(pg));
    assertEquals(Map.of(), BankFixture.legsByTransfer(pg));
    assertEquals(ACCOUNTS * INITIAL, BankFixture.total(pg));
  }

  @Test
  void theDecidingShardKilledBeforeItsCommit_isInDoubt_andRecoveryWaitsForItThenRollsBack() throws Exception {
    PostgresNode deciding = pg.shard(deciderIndex()).primary();
    BankFixture.service(sf).faultInjector((point, gid, shard) -> {
      if (point == Point.AFTER_PREPARE) {
        deciding.kill();
      }
    });

    TransactionInDoubtException e = assertThrows(TransactionInDoubtException.class,
        () -> BankFixture.transfer(shards, "t1", a, b, 100));
    assertTrue(e.getMessage().contains("deciding shard '" + decider() + "' did not answer"), e.getMessage());
    BankFixture.service(sf).faultInjector(null);

    var whileDown = BankFixture.service(sf).twoPhase().recover(0, 0);
    assertEquals(0, whileDown.committed() + whileDown.rolledBack(), "with the decider down, recovery decides nothing");
    assertTrue(whileDown.unreachableShards().contains(decider()), whileDown.toString());
    assertEquals(1, ShopFixture.count(pg.shard(preparedShardIndex()), "SELECT count(*) FROM pg_prepared_xacts"),
        "still prepared");

    deciding.start(); // crash recovery on the decider: its unfinished transaction is aborted
    AtomicInteger rolledBack = new AtomicInteger(); // the pool may need a pass or two to reconnect
    await().atMost(Duration.ofSeconds(30))
        .until(() -> rolledBack.addAndGet(BankFixture.service(sf).recoverNow().rolledBack()) > 0);
    assertEquals(1, rolledBack.get());
    assertEquals(Map.of(), BankFixture.legsByTransfer(pg));
    assertEquals(ACCOUNTS * INITIAL, BankFixture.total(pg));
  }

  @Test
  void aShardRestartedAfterPrepareKeepsItsPreparedTransaction_andCommits() throws Exception {
    PostgresNode prepared = pg.shard(preparedShardIndex()).primary();
    AtomicBoolean survivedRestart = new AtomicBoolean();
    BankFixture.service(sf).faultInjector((point, gid, shard) -> {
      if (point == Point.AFTER_PREPARE) {
        prepared.stop();
        prepared.start();
        survivedRestart.set(isPrepared(prepared, gid));
      }
    });

    BankFixture.transfer(shards, "t1", a, b, 100);

    assertTrue(survivedRestart.get(), "PostgreSQL keeps a prepared transaction across a restart");
    BankFixture.service(sf).recoverNow(); // commits there if its stale pooled connection failed phase two
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
      assertTrue(e.getMessage().contains("recovery ended that transaction before it could commit"), e.getMessage());
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
      assertEquals(1, skipped.get(), "within the grace period, a live coordinator's prepared transactions are its own");
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

  @Test
  void aPreparedTransactionCommittedByRecoveryFirstIsVerifiedAndCountsAsCommitted() throws Exception {
    try (SessionFactory other = BankFixture.builder(pg).buildSessionFactory()) {
      CrossShardService otherInstance = BankFixture.service(other);
      AtomicReference<Integer> committedByRecovery = new AtomicReference<>();
      BankFixture.service(sf).faultInjector((point, gid, shard) -> {
        if (point == Point.AFTER_DECISION) {
          committedByRecovery.set(otherInstance.twoPhase().recover(0, 600_000).committed());
        }
      });

      BankFixture.transfer(shards, "t1", a, b, 100); // COMMIT PREPARED finds nothing, checks, and is content

      assertEquals(1, committedByRecovery.get());
    }
    assertEquals(Map.of("t1", 2), BankFixture.legsByTransfer(pg));
    assertEquals(ACCOUNTS * INITIAL, BankFixture.total(pg));
  }

  @Test
  void aPreparedTransactionRolledBackBehindTheCoordinatorsBackIsReportedNotCountedAsCommitted() throws Exception {
    PostgresNode prepared = pg.shard(preparedShardIndex()).primary();
    BankFixture.service(sf).faultInjector((point, gid, shard) -> {
      if (point == Point.AFTER_DECISION) {
        try (Connection c = prepared.dataSource().getConnection(); Statement s = c.createStatement()) {
          s.execute("ROLLBACK PREPARED '" + gid + "'"); // an operator "cleaning up"
        } catch (java.sql.SQLException e) {
          throw new IllegalStateException(e);
        }
      }
    });

    ShardwiseException e = assertThrows(ShardwiseException.class, () -> BankFixture.transfer(shards, "t1", a, b, 100));

    assertTrue(e.getMessage().contains("half applied") && e.getMessage().contains("shard" + preparedShardIndex()),
        e.getMessage());
    assertEquals(Map.of("t1", 1), BankFixture.legsByTransfer(pg), "what the message says: only the decider's leg");
  }

  @Test
  void theDecidersCommitIsSynchronousEvenWhereTheShardDefaultIsAsynchronous() throws Exception {
    sf.close();
    PostgresNode deciding = pg.shard(deciderIndex()).primary();
    try (Connection c = deciding.dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute("ALTER DATABASE postgres SET synchronous_commit = off"); // for connections opened from now on
    }
    try {
      sf = BankFixture.builder(pg).buildSessionFactory();
      shards = ShardedSessions.of(sf);
      transferRecordingSynchronousCommit();
    } finally {
      try (Connection c = deciding.dataSource().getConnection(); Statement s = c.createStatement()) {
        s.execute("ALTER DATABASE postgres RESET synchronous_commit");
      }
    }
  }

  private void transferRecordingSynchronousCommit() throws Exception {
    AtomicReference<org.hibernate.Session> deciderSession = new AtomicReference<>();
    List<String> settings = new ArrayList<>();
    BankFixture.service(sf).faultInjector((point, gid, shard) -> {
      if (point == Point.AFTER_PREPARE) {
        settings.add(synchronousCommit(deciderSession.get()));
      }
    });

    long high = Math.max(a, b);
    long low = Math.min(a, b);
    shards.atomically(tx -> {
      tx.on(low, s -> s.find(Account.class, low).withdraw(1));
      tx.on(high, s -> {
        s.find(Account.class, high).deposit(1);
        deciderSession.set(s);
        settings.add(synchronousCommit(s));
      });
    });

    assertEquals(List.of("off", "on"), settings, "the shard's default, then the decider's transaction at its commit");
    assertEquals(ACCOUNTS * INITIAL, BankFixture.total(pg));
  }

  @Test
  void aSlowRecoveryPassDoesNotHoldUpTheHeartbeat() throws Exception {
    sf.close();
    sf = BankFixture.builder(pg, Duration.ofMillis(100)).buildSessionFactory();
    CrossShardService service = BankFixture.service(sf);
    CountDownLatch recoveryStuck = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    service.faultInjector((point, id, shard) -> {
      if (point == Point.RECOVERY_PASS) {
        recoveryStuck.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
    try {
      assertTrue(recoveryStuck.await(30, TimeUnit.SECONDS), "the recovery daemon ran a pass");
      java.sql.Timestamp stuckAt = heartbeatOf(service.coordinatorId());
      await().atMost(Duration.ofSeconds(30)).until(() -> heartbeatOf(service.coordinatorId()).after(stuckAt));
      java.sql.Timestamp later = heartbeatOf(service.coordinatorId());
      await().atMost(Duration.ofSeconds(30)).until(() -> heartbeatOf(service.coordinatorId()).after(later));
      assertEquals(1, release.getCount(), "the recovery pass was stuck all along while the heartbeat went on");
    } finally {
      release.countDown();
      service.faultInjector(null);
    }
  }

  // ---------------------------------------------------------------------------------------

  /** The deciding shard: that of the higher account id, which the transfer touches last. */
  private String decider() {
    return shards.shardFor(Math.max(a, b));
  }

  private int deciderIndex() {
    return Integer.parseInt(decider().substring("shard".length()));
  }

  private int preparedShardIndex() {
    return 1 - deciderIndex();
  }

  private List<Integer> preparedShardIndexes() throws Exception {
    return BankFixture.preparedTransactions(pg).stream().map(g -> Integer.parseInt(g.substring(0, g.indexOf(':'))))
        .toList();
  }

  private static String synchronousCommit(org.hibernate.Session s) {
    return s.doReturningWork(c -> {
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SHOW synchronous_commit")) {
        rs.next();
        return rs.getString(1);
      }
    });
  }

  private java.sql.Timestamp heartbeatOf(String coordinatorId) throws Exception {
    try (Connection c = pg.shard(0).primary().dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT heartbeat_at FROM shardwise.tx_coordinator WHERE id = ?")) {
      ps.setString(1, coordinatorId);
      try (ResultSet rs = ps.executeQuery()) {
        assertTrue(rs.next(), "coordinator " + coordinatorId + " is registered");
        return rs.getTimestamp(1);
      }
    }
  }


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

}
