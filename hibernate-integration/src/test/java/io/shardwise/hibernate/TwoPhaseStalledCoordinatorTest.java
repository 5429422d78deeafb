package io.shardwise.hibernate;

import static io.shardwise.hibernate.BankFixture.INITIAL;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.transaction.CrossShardAbortedException;
import io.shardwise.hibernate.bank.Account;
import io.shardwise.hibernate.bank.TransferLeg;
import io.shardwise.hibernate.transaction.internal.CoordinatorCrash;
import io.shardwise.hibernate.transaction.internal.CrossShardService;
import io.shardwise.hibernate.transaction.internal.FaultInjector;
import io.shardwise.hibernate.transaction.internal.FaultInjector.Point;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A coordinator that stalls (a GC or VM pause, a hung socket) while another instance's recovery
 * runs, on three shards: one transfer debits an account on the first shard and credits two others,
 * touched in that order, so the first two shards are prepared and the third decides.
 *
 * <p>The interleaving of issue 13: the coordinator prepares the first shard and stalls past the
 * grace period; another instance's recovery resolves what it finds (and runs again, as it would
 * periodically); the coordinator wakes up, prepares the second shard and tries to commit. Under the
 * earlier protocol that committed two of three legs. Here recovery ends the decider's transaction,
 * which can then never commit, so the transfer is on no shard.
 */
@ShardedPostgres(shards = 3)
class TwoPhaseStalledCoordinatorTest {
  private static final int ACCOUNTS = 40;

  private PostgresTopology pg;
  private SessionFactory sf;
  private ShardedSessions shards;
  private long first;
  private long second;
  private long deciding;

  @BeforeEach
  void bank(PostgresTopology pg) {
    this.pg = pg;
    sf = BankFixture.openWithAccounts(pg, ACCOUNTS);
    shards = ShardedSessions.of(sf);
    first = BankFixture.key(shards, "shard0", 1);
    second = BankFixture.key(shards, "shard1", first + 1);
    deciding = BankFixture.key(shards, "shard2", second + 1);
    assertTrue(deciding <= ACCOUNTS, "three accounts in ascending order on shards 0, 1, 2");
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
  void stalledAfterTheFirstPrepare_pastTheGracePeriod_recoveryAborts_andTheCoordinatorCannotCommitLater()
      throws Exception {
    CountDownLatch stalled = new CountDownLatch(1);
    CountDownLatch wakeUp = new CountDownLatch(1);
    BankFixture.service(sf).faultInjector(stallAt(Point.BEFORE_PREPARE, "shard1", stalled, wakeUp));

    try (SessionFactory other = BankFixture.builder(pg).property(ShardwiseSettings.TX_IN_DOUBT_GRACE, "200")
        .buildSessionFactory()) {
      CrossShardService otherInstance = BankFixture.service(other);
      CompletableFuture<Void> transfer = CompletableFuture.runAsync(() -> splitTransfer("t1", 100));
      assertTrue(stalled.await(30, TimeUnit.SECONDS), "the coordinator prepared shard 0 and stalls");
      assertEquals(List.of("0"), preparedShards());

      // the other instance's recovery, every pass until the stalled transaction is past the grace period
      AtomicInteger rolledBack = new AtomicInteger();
      await().atMost(Duration.ofSeconds(30)).until(() -> rolledBack.addAndGet(otherInstance.recoverNow().rolledBack()) > 0);
      assertEquals(1, rolledBack.get());
      assertEquals(List.of(), preparedShards(), "recovery rolled shard 0 back");
      assertEquals(0, otherInstance.recoverNow().rolledBack(), "a later pass finds nothing left to do");

      wakeUp.countDown(); // the coordinator prepares shard 1 and tries to commit on shard 2
      ExecutionException e = assertThrows(ExecutionException.class, () -> transfer.get(60, TimeUnit.SECONDS));
      CrossShardAbortedException aborted = assertInstanceOf(CrossShardAbortedException.class, e.getCause());
      assertTrue(aborted.getMessage().contains("recovery ended that transaction before it could commit"),
          aborted.getMessage());
    }
    assertEquals(Map.of(), BankFixture.legsByTransfer(pg), "no leg on any shard");
    assertEquals(ACCOUNTS * INITIAL, BankFixture.total(pg));
    assertEquals(INITIAL, BankFixture.balances(pg).get(first));
  }

  @Test
  void stalledAfterTheCommitPoint_recoveryCommitsTheRest_andTheCoordinatorVerifiesAndReportsSuccess()
      throws Exception {
    CountDownLatch stalled = new CountDownLatch(1);
    CountDownLatch wakeUp = new CountDownLatch(1);
    BankFixture.service(sf).faultInjector(stallAt(Point.AFTER_DECISION, "shard2", stalled, wakeUp));

    try (SessionFactory other = BankFixture.builder(pg).property(ShardwiseSettings.TX_IN_DOUBT_GRACE, "200")
        .buildSessionFactory()) {
      CrossShardService otherInstance = BankFixture.service(other);
      CompletableFuture<Void> transfer = CompletableFuture.runAsync(() -> splitTransfer("t1", 100));
      assertTrue(stalled.await(30, TimeUnit.SECONDS), "the decider committed and the coordinator stalls");
      assertEquals(List.of("0", "1"), preparedShards());

      AtomicInteger committed = new AtomicInteger();
      await().atMost(Duration.ofSeconds(30)).until(() -> committed.addAndGet(otherInstance.recoverNow().committed()) == 2);

      wakeUp.countDown(); // COMMIT PREPARED finds both gone, checks that they committed
      transfer.get(60, TimeUnit.SECONDS);
    }
    assertEquals(Map.of("t1", 3), BankFixture.legsByTransfer(pg));
    assertEquals(ACCOUNTS * INITIAL, BankFixture.total(pg));
    assertEquals(INITIAL - 100, BankFixture.balances(pg).get(first));
  }

  @Test
  void coordinatorDiesBetweenTwoCommitPrepareds_recoveryCommitsTheOther() throws Exception {
    BankFixture.service(sf).faultInjector((point, gid, shard) -> {
      if (point == Point.AFTER_COMMIT) {
        throw new CoordinatorCrash("dies after COMMIT PREPARED on " + shard + " of " + gid);
      }
    });
    assertThrows(CoordinatorCrash.class, () -> splitTransfer("t1", 100));
    assertEquals(List.of("1"), preparedShards(), "shard 0 and the decider committed, shard 1 still prepared");

    BankFixture.service(sf).faultInjector(null);
    assertEquals(1, BankFixture.service(sf).recoverNow().committed());
    assertEquals(Map.of("t1", 3), BankFixture.legsByTransfer(pg));
    assertEquals(ACCOUNTS * INITIAL, BankFixture.total(pg));
  }

  // ---------------------------------------------------------------------------------------

  /** 100 from the account on shard 0, half of it to the account on shard 1, half to the one on shard 2. */
  private void splitTransfer(String transferId, long amount) {
    shards.atomically(tx -> {
      tx.on(first, s -> {
        s.find(Account.class, first).withdraw(amount);
        s.persist(new TransferLeg(transferId, first, -amount));
      });
      for (long to : new long[] {second, deciding}) {
        tx.on(to, s -> {
          s.find(Account.class, to).deposit(amount / 2);
          s.persist(new TransferLeg(transferId, to, amount / 2));
        });
      }
    });
  }

  private static FaultInjector stallAt(Point at, String onShard, CountDownLatch stalled, CountDownLatch wakeUp) {
    return (point, gid, shard) -> {
      if (point == at && onShard.equals(shard)) {
        stalled.countDown();
        try {
          if (!wakeUp.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the test never woke the coordinator up");
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
      }
    };
  }

  /** The indexes of the shards holding a prepared transaction, in order. */
  private List<String> preparedShards() throws Exception {
    return BankFixture.preparedTransactions(pg).stream().map(g -> g.substring(0, g.indexOf(':'))).sorted().toList();
  }
}
