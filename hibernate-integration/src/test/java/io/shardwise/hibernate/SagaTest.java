package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.bank.Account;
import io.shardwise.hibernate.bank.TransferLeg;
import io.shardwise.hibernate.transaction.SagaDefinition;
import io.shardwise.hibernate.transaction.SagaOutcome;
import io.shardwise.hibernate.transaction.Sagas;
import io.shardwise.hibernate.transaction.internal.CoordinatorCrash;
import io.shardwise.hibernate.transaction.internal.CrossShardService;
import io.shardwise.hibernate.transaction.internal.FaultInjector.Point;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Sagas: the bank invariant with business failures (compensation) and coordinator crashes (resumed
 * from the log), what other readers see between steps, a crash resumed by another instance, a saga
 * taken over by another instance between recovery's listing and its claim, and transient failures
 * retried.
 */
@ShardedPostgres(shards = 2)
class SagaTest {
  private static final int ACCOUNTS = 20;
  /** 400 in the default build, 1,000 under -Plong: the same knob as {@link TwoPhaseBankTest}'s transfers. */
  private static final int TRANSFERS = Integer.getInteger("bank.transfers", 400);
  private static final long[] FROZEN = {7, 13};

  private PostgresTopology pg;
  private SessionFactory sf;

  /** payload: transferId,from,to,amount. Every balance change writes a leg in the same local transaction. */
  static SagaDefinition transfer() {
    return SagaDefinition.named("transfer")
        .step("debit", p -> field(p, 1), (s, p) -> {
          s.find(Account.class, field(p, 1)).withdraw(field(p, 3));
          s.persist(new TransferLeg(id(p), field(p, 1), -field(p, 3)));
        }, (s, p) -> {
          s.find(Account.class, field(p, 1)).adjust(field(p, 3));
          s.persist(new TransferLeg(id(p) + "/undo", field(p, 1), field(p, 3)));
        })
        .step("credit", p -> field(p, 2), (s, p) -> {
          s.find(Account.class, field(p, 2)).deposit(field(p, 3));
          s.persist(new TransferLeg(id(p), field(p, 2), field(p, 3)));
        }, (s, p) -> {
          s.find(Account.class, field(p, 2)).adjust(-field(p, 3));
          s.persist(new TransferLeg(id(p) + "/undo", field(p, 2), -field(p, 3)));
        })
        .build();
  }

  private static String id(String payload) {
    return payload.split(",")[0];
  }

  private static long field(String payload, int index) {
    return Long.parseLong(payload.split(",")[index]);
  }

  @BeforeEach
  void bank(PostgresTopology pg) {
    this.pg = pg;
    sf = BankFixture.openWithAccounts(pg, ACCOUNTS);
    ShardedSessions shards = ShardedSessions.of(sf);
    for (long frozen : FROZEN) {
      shards.forKey(frozen).inTransaction(s -> s.find(Account.class, frozen).setFrozen(true));
    }
  }

  @AfterEach
  void close() {
    if (sf != null) {
      sf.close();
    }
  }

  @Test
  void sagaTransfersWithCrashesAndCompensationsKeepTheSum() throws Exception {
    ShardedSessions shards = ShardedSessions.of(sf);
    Sagas sagas = shards.sagas().register(transfer());
    CrossShardService service = BankFixture.service(sf);
    Random random = new Random(3);
    Map<String, String> outcomes = new HashMap<>();
    int crashes = 0;
    for (int i = 0; i < TRANSFERS; i++) {
      long from = 1 + random.nextInt(ACCOUNTS);
      long to = 1 + random.nextInt(ACCOUNTS - 1);
      if (to >= from) {
        to++;
      }
      String payload = "s" + i + "," + from + "," + to + "," + (1 + random.nextInt(300));
      int dice = random.nextInt(100);
      String crashAfter = dice < 5 ? "#0" : dice < 8 ? "#1" : null;
      if (crashAfter != null) {
        service.faultInjector((point, sagaStep, shard) -> {
          if (point == Point.AFTER_SAGA_STEP && sagaStep.endsWith(crashAfter)) {
            throw new CoordinatorCrash("coordinator dies after step " + sagaStep);
          }
        });
      }
      try {
        SagaOutcome outcome = sagas.run("transfer", payload);
        outcomes.put(id(payload), outcome.state());
      } catch (CoordinatorCrash crash) {
        crashes++;
        service.faultInjector(null);
        service.recoverNow(); // the replacement resumes from the log
        outcomes.put(id(payload), null);
      } finally {
        service.faultInjector(null);
      }
    }

    assertEquals(0, ShopFixture.count(pg.shard(0),
        "SELECT count(*) FROM shardwise.saga WHERE state IN ('RUNNING', 'COMPENSATING')"), "every saga finished");
    Map<String, Integer> legs = BankFixture.legsByTransfer(pg);
    int completed = 0;
    int compensated = 0;
    for (Map.Entry<String, String> e : outcomes.entrySet()) {
      int forward = legs.getOrDefault(e.getKey(), 0);
      int undone = legs.getOrDefault(e.getKey() + "/undo", 0);
      if (forward == 2 && undone == 0) {
        completed++;
      } else {
        assertEquals(forward, undone, e.getKey() + ": every applied step is compensated (" + forward + " forward, "
            + undone + " undone)");
        assertTrue("COMPENSATED".equals(e.getValue()) || e.getValue() == null, e.getKey() + " " + e.getValue());
        compensated++;
      }
      if ("COMPLETED".equals(e.getValue())) {
        assertEquals(2, forward, e.getKey() + " completed: both legs");
      }
    }
    Map<Long, Long> balances = BankFixture.balances(pg);
    Map<Long, Long> moved = BankFixture.legSums(pg);
    for (long account = 1; account <= ACCOUNTS; account++) {
      assertEquals(BankFixture.INITIAL + moved.getOrDefault(account, 0L), balances.get(account), "account " + account);
    }
    assertEquals(ACCOUNTS * BankFixture.INITIAL, BankFixture.total(pg), "the sum of balances is unchanged");
    System.out.printf("Saga bank: %d transfers, %d completed, %d compensated, %d coordinator crashes%n", TRANSFERS,
        completed, compensated, crashes);
    assertTrue(crashes >= TRANSFERS * 3 / 100 && compensated >= TRANSFERS / 20 && completed >= TRANSFERS / 2,
        completed + "/" + compensated + "/" + crashes);
  }

  @Test
  void recoveryNeverTakesUpASagaItsOwnInstanceIsRunning() throws Exception {
    sf.close();
    sf = BankFixture.builder(pg, Duration.ofMillis(20)).buildSessionFactory();
    ShardedSessions shards = ShardedSessions.of(sf);
    shards.sagas().register(transfer());
    java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
    java.util.List<java.util.concurrent.Future<SagaOutcome>> runs = new java.util.ArrayList<>();
    for (int i = 0; i < 300; i++) {
      long from = i % 2 == 0 ? 1 : 2;
      long to = i % 2 == 0 ? 3 : 4;
      String payload = "live" + i + "," + from + "," + to + ",1";
      runs.add(pool.submit(() -> shards.sagas().run("transfer", payload)));
    }
    for (var run : runs) {
      assertTrue(run.get().completed());
    }
    pool.shutdown();
    assertEquals(0, BankFixture.service(sf).sagas().resumedByRecovery(),
        "a recovery pass every 20 ms must leave sagas alone while this instance runs them");
  }

  @Test
  void readersSeeTheMoneyDebitedButNotYetCredited() throws Exception {
    ShardedSessions shards = ShardedSessions.of(sf);
    Sagas sagas = shards.sagas().register(transfer());
    long a = BankFixture.key(shards, "shard0", 1);
    long b = BankFixture.key(shards, "shard1", 1);
    List<Long> totalsBetweenSteps = new ArrayList<>();
    BankFixture.service(sf).faultInjector((point, sagaStep, shard) -> {
      if (point == Point.AFTER_SAGA_STEP && sagaStep.endsWith("#0")) {
        try {
          totalsBetweenSteps.add(BankFixture.total(pg));
        } catch (java.sql.SQLException e) {
          throw new IllegalStateException(e);
        }
      }
    });
    long all = ACCOUNTS * BankFixture.INITIAL;

    assertEquals("COMPLETED", sagas.run("transfer", "r1," + a + "," + b + ",100").state());
    assertEquals(List.of(all - 100), totalsBetweenSteps, "between debit and credit, 100 is in flight and invisible");
    assertEquals(all, BankFixture.total(pg));

    long frozen = FROZEN[0];
    SagaOutcome refused = sagas.run("transfer", "r2," + a + "," + frozen + ",50");
    assertEquals("COMPENSATED", refused.state());
    assertTrue(refused.failure().contains("frozen"), refused.failure());
    assertEquals(List.of(all - 100, all - 50), totalsBetweenSteps, "a compensated saga was visible too");
    assertEquals(all, BankFixture.total(pg));
    assertEquals("COMPENSATED", sagas.state(refused.sagaId()));
  }

  @Test
  void aSagaLeftByADeadInstanceIsResumedForwardByAnother() throws Exception {
    ShardedSessions shards = ShardedSessions.of(sf);
    long a = BankFixture.key(shards, "shard0", 1);
    long b = BankFixture.key(shards, "shard1", 1);
    BankFixture.service(sf).faultInjector((point, sagaStep, shard) -> {
      throw new CoordinatorCrash("dies after " + sagaStep);
    });
    Sagas sagas = shards.sagas().register(transfer());
    assertThrows(CoordinatorCrash.class, () -> sagas.run("transfer", "x1," + a + "," + b + ",100"));
    assertEquals(ACCOUNTS * BankFixture.INITIAL - 100, BankFixture.total(pg), "debited, not credited");
    sf.close();

    sf = BankFixture.builder(pg).buildSessionFactory();
    ShardedSessions.of(sf).sagas().register(transfer());
    BankFixture.service(sf).recoverNow();

    assertEquals(ACCOUNTS * BankFixture.INITIAL, BankFixture.total(pg));
    assertEquals(Map.of("x1", 2), BankFixture.legsByTransfer(pg));
    assertEquals(1, ShopFixture.count(pg.shard(0), "SELECT count(*) FROM shardwise.saga WHERE payload LIKE 'x1,%'"
        + " AND state = 'COMPLETED'"));
  }

  @Test
  void recoveryReChecksOwnershipBeforeDriving_aSagaAnotherInstanceTookOverMeanwhileIsLeftToIt() throws Exception {
    ShardedSessions shards = ShardedSessions.of(sf);
    long a = BankFixture.key(shards, "shard0", 1);
    long b = BankFixture.key(shards, "shard1", 1);
    CrossShardService mine = BankFixture.service(sf);
    mine.faultInjector((point, sagaStep, shard) -> {
      throw new CoordinatorCrash("this instance's runner dies after " + sagaStep);
    });
    Sagas sagas = shards.sagas().register(transfer());
    assertThrows(CoordinatorCrash.class, () -> sagas.run("transfer", "o1," + a + "," + b + ",100"));
    mine.faultInjector(null);

    // Another instance whose recovery runs every 50 ms: once this instance's heartbeat is older than
    // 150 ms it counts it as gone. It gets the saga's definition only after this instance's recovery
    // has listed the saga as its own, and is held after its first step while this instance looks again.
    try (SessionFactory otherFactory = BankFixture.builder(pg, Duration.ofMillis(50))
        .buildSessionFactory()) {
      CrossShardService other = BankFixture.service(otherFactory);
      CountDownLatch otherDriving = new CountDownLatch(1);
      CountDownLatch releaseOther = new CountDownLatch(1);
      other.faultInjector((point, sagaStep, shard) -> {
        if (point == Point.AFTER_SAGA_STEP) {
          otherDriving.countDown();
          await(releaseOther);
        }
      });
      mine.faultInjector((point, sagaId, shard) -> {
        if (point == Point.BEFORE_SAGA_CLAIM) {
          ShardedSessions.of(otherFactory).sagas().register(transfer());
          await(otherDriving);
        }
      });

      mine.recoverNow();

      assertEquals(0, mine.sagas().resumedByRecovery(), "the saga was listed as this instance's, but was taken over");
      releaseOther.countDown();
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> ShopFixture.count(
          pg.shard(0), "SELECT count(*) FROM shardwise.saga WHERE payload LIKE 'o1,%' AND state = 'COMPLETED'") == 1);
      assertEquals(1, other.sagas().resumedByRecovery());
    } finally {
      mine.faultInjector(null);
    }
    assertEquals(Map.of("o1", 2), BankFixture.legsByTransfer(pg), "each step applied once");
    assertEquals(ACCOUNTS * BankFixture.INITIAL, BankFixture.total(pg));
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, java.util.concurrent.TimeUnit.SECONDS)) {
        throw new IllegalStateException("waited 30 s for the other side of the interleaving");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  void transientFailuresAreRetriedWithBackoff() throws Exception {
    ShardedSessions shards = ShardedSessions.of(sf);
    AtomicInteger calls = new AtomicInteger();
    SagaDefinition flaky = SagaDefinition.named("flaky")
        .step("touch", p -> 1L, (s, p) -> {
          if (calls.incrementAndGet() < 3) {
            throw new ShardUnavailableException("shard briefly unavailable (attempt " + calls.get() + ")", null);
          }
          s.find(Account.class, 1L).adjust(0);
        }, (s, p) -> { })
        .build();
    SagaOutcome outcome = shards.sagas().register(flaky).run("flaky", "");
    assertEquals("COMPLETED", outcome.state());
    assertEquals(3, calls.get());
    assertEquals(3, ShopFixture.count(pg.shard(0), "SELECT attempts FROM shardwise.saga_step WHERE saga_id = ?",
        outcome.sagaId()));
  }
}
