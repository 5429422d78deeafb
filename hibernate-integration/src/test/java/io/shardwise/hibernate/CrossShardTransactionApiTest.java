package io.shardwise.hibernate;

import static io.shardwise.hibernate.BankFixture.INITIAL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.bank.Account;
import io.shardwise.hibernate.bank.TransferLeg;
import io.shardwise.hibernate.transaction.RecoveryReport;
import io.shardwise.hibernate.transaction.internal.CoordinatorCrash;
import io.shardwise.hibernate.transaction.internal.FaultInjector;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import jakarta.persistence.EntityNotFoundException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The public side of cross-shard transactions: the documented read-and-lock form keeps money
 * constant under concurrent transfers, the work's own exceptions come out unchanged, misuse of
 * {@code lock} is refused before anything is locked, and recovery runs on demand and says what it
 * did.
 */
@ShardedPostgres(shards = 2)
class CrossShardTransactionApiTest {
  private static final int ACCOUNTS = 6;

  private PostgresTopology pg;
  private SessionFactory sf;
  private ShardedSessions shards;

  @BeforeEach
  void bank(PostgresTopology pg) {
    this.pg = pg;
    sf = builder().schema("create").buildSessionFactory();
    shards = ShardedSessions.of(sf);
    for (long id = 1; id <= ACCOUNTS; id++) {
      long key = id;
      shards.forKey(key).inTransaction(s -> s.persist(new Account(key, INITIAL)));
    }
  }

  @AfterEach
  void close() {
    sf.close();
  }

  /** The form docs/transactions.md shows. */
  private void transfer(String transferId, long from, long to, long amount) {
    shards.atomically(tx -> {
      List<Account> accounts = tx.lock(Account.class, from, to);
      accounts.get(0).withdraw(amount);
      accounts.get(1).deposit(amount);
      tx.on(from, s -> s.persist(new TransferLeg(transferId, from, -amount)));
      tx.on(to, s -> s.persist(new TransferLeg(transferId, to, amount)));
    });
  }

  @Test
  void concurrentTransfersInTheDocumentedFormNeitherCreateNorDestroyMoney() throws Exception {
    int threads = 4;
    int transfersPerThread = 25;
    AtomicInteger committed = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      done.add(pool.submit(() -> {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < transfersPerThread; i++) {
          long from = 1 + random.nextInt(ACCOUNTS);
          long to = 1 + (from + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
          try {
            transfer("t" + thread + "-" + i, from, to, 1 + random.nextInt(400));
            committed.incrementAndGet();
          } catch (IllegalStateException insufficientFunds) {
            assertTrue(insufficientFunds.getMessage().startsWith("insufficient funds"),
                insufficientFunds.getMessage());
            refused.incrementAndGet();
          }
        }
      }));
    }
    pool.shutdown();
    for (Future<?> f : done) {
      f.get(5, TimeUnit.MINUTES);
    }

    assertEquals(threads * transfersPerThread, committed.get() + refused.get());
    assertTrue(committed.get() > threads * transfersPerThread / 2, "most transfers went through: " + committed);
    Map<Long, Long> balances = BankFixture.balances(pg);
    Map<Long, Long> moved = BankFixture.legSums(pg);
    assertEquals(ACCOUNTS * INITIAL, BankFixture.total(pg), "no money created or destroyed");
    for (long id = 1; id <= ACCOUNTS; id++) {
      assertEquals(INITIAL + moved.getOrDefault(id, 0L), balances.get(id),
          "account " + id + " moved by exactly its committed legs: no update was lost");
      assertTrue(balances.get(id) >= 0, "account " + id + " never overdrawn");
    }
    assertEquals(2 * committed.get(), BankFixture.legsByTransfer(pg).values().stream().mapToInt(i -> i).sum());
  }

  /**
   * Each participant flushes once, when the work returns: the deciding shard's COMMIT does not
   * flush again (it used to: a second dirty-checking pass on the commit path), and what the work
   * changed still commits on both shards, the deciding one included.
   */
  @Test
  void eachParticipantFlushesOnceAndEveryShardCommits() throws Exception {
    long a = BankFixture.key(shards, "shard0", 1);
    long b = BankFixture.key(shards, "shard1", 1);
    sf.getStatistics().clear();

    transfer("flush-once", a, b, 7);

    assertEquals(2, sf.getStatistics().getFlushCount(), "flushes of a transfer over two shards");
    assertEquals(INITIAL - 7, BankFixture.balances(pg).get(a));
    assertEquals(INITIAL + 7, BankFixture.balances(pg).get(b));
    assertEquals(Map.of("flush-once", 2), BankFixture.legsByTransfer(pg));
  }

  @Test
  void theWorksOwnExceptionComesOutUnchangedAndNothingIsWritten() throws Exception {
    long a = BankFixture.key(shards, "shard0", 1);
    long b = BankFixture.key(shards, "shard1", 1);
    IllegalArgumentException thrown = new IllegalArgumentException("the application's own reason");
    IllegalArgumentException caught = assertThrows(IllegalArgumentException.class, () -> shards.atomically(tx -> {
      tx.lock(Account.class, a, b).forEach(account -> account.deposit(5));
      tx.on(a, s -> s.flush());
      throw thrown;
    }));
    assertSame(thrown, caught);
    assertEquals(ACCOUNTS * INITIAL, BankFixture.total(pg));
    assertEquals(INITIAL, BankFixture.balances(pg).get(a));
  }

  @Test
  void lockRefusesWhatItCannotDoSafelyBeforeLockingAnything() throws Exception {
    long a = BankFixture.key(shards, "shard0", 1);
    long b = BankFixture.key(shards, "shard1", 1);
    long low = Math.min(a, b);
    long high = Math.max(a, b);

    IllegalStateException outOfOrder = assertThrows(IllegalStateException.class, () -> shards.atomically(tx -> {
      tx.lock(Account.class, high);
      tx.lock(Account.class, low);
    }));
    assertTrue(outOfOrder.getMessage().contains("already locked id " + high), outOfOrder.getMessage());

    IllegalArgumentException notByKey = assertThrows(IllegalArgumentException.class,
        () -> shards.atomically(tx -> tx.lock(TransferLeg.class, 1L)));
    assertTrue(notByKey.getMessage().contains("needs an entity whose id is its shard key"), notByKey.getMessage());

    EntityNotFoundException missing = assertThrows(EntityNotFoundException.class,
        () -> shards.atomically(tx -> tx.lock(Account.class, a, 999_999L)));
    assertTrue(missing.getMessage().startsWith("No Account with id 999999 to lock"), missing.getMessage());

    List<Account> again = shards.fromAtomically(tx -> {
      Account early = tx.from(a, s -> s.find(Account.class, a));
      tx.on(a, s -> s.doWork(c -> {
        try (var update = c.createStatement()) {
          update.executeUpdate("UPDATE Account SET balance = balance + 7 WHERE id = " + a);
        }
      }));
      List<Account> locked = tx.lock(Account.class, b, a);
      assertSame(early, locked.get(1), "the session's own instance, in argument order");
      return locked;
    });
    assertEquals(INITIAL + 7, again.get(1).getBalance(), "read again under the lock, not the value read before it");
  }

  @Test
  void recoveryRunsThroughThePublicApiAndSaysWhatItDid() throws Exception {
    long a = BankFixture.key(shards, "shard0", 1);
    long b = BankFixture.key(shards, "shard1", 1);
    BankFixture.service(sf).faultInjector(crashAfterFirstCommit());
    assertThrows(CoordinatorCrash.class, () -> transfer("t1", a, b, 100));
    assertEquals(1, BankFixture.preparedTransactions(pg).size(), "one shard committed, the other still prepared");
    BankFixture.service(sf).faultInjector(null);

    RecoveryReport report = shards.transactions().recoverNow();

    assertEquals(1, report.committed(), report.toString());
    assertEquals(0, report.rolledBack(), report.toString());
    assertTrue(report.settledEverything(), report.toString());
    assertEquals(List.of(), BankFixture.preparedTransactions(pg));
    assertEquals(Map.of("t1", 2), BankFixture.legsByTransfer(pg));
    assertEquals(ACCOUNTS * INITIAL, BankFixture.total(pg));

    RecoveryReport nothingLeft = shards.transactions().recoverNow();
    assertEquals(new RecoveryReport(0, 0, 0, List.of(), 0), nothingLeft);
  }

  /**
   * The bank of {@link BankFixture} with a connection per thread and shard, and a lock timeout far
   * above any queue of transfers on this shared machine: every lock wait here is a queue, none a
   * deadlock, and a wait that ended in a timeout would hide which.
   */
  private Shardwise.Builder builder() {
    Shardwise.Builder b = Shardwise.configure().credentials("postgres", null)
        .entities(Account.class, TransferLeg.class, io.shardwise.hibernate.shop.Country.class)
        .controlDatabase(pg.shard(0).primary().jdbcUrl(), true)
        .property(ShardwiseSettings.POOL_SIZE, "8")
        .property("hibernate.generate_statistics", "true")
        .property(ShardwiseSettings.TX_RECOVERY_INTERVAL, "600000");
    pg.shards().forEach(shard -> b.shard(ShopFixture.shardId(shard.index()),
        shard.primary().jdbcUrl() + "?options=-c%20lock_timeout%3D120000"));
    return b;
  }

  /** The deciding shard committed (the transaction is decided); the other participant is still prepared. */
  private static FaultInjector crashAfterFirstCommit() {
    return (point, gid, shard) -> {
      if (point == FaultInjector.Point.AFTER_DECISION) {
        throw new CoordinatorCrash("coordinator dies after the deciding shard " + shard + " committed " + gid);
      }
    };
  }
}
