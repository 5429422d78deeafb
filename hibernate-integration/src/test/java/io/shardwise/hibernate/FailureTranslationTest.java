package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.bank.Account;
import io.shardwise.hibernate.internal.ShardFailures;
import io.shardwise.hibernate.resharding.BucketMovedException;
import io.shardwise.hibernate.transaction.CrossShardAbortedException;
import io.shardwise.hibernate.transaction.CrossShardTransaction;
import io.shardwise.hibernate.transaction.ReferenceTables;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import jakarta.persistence.LockModeType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.hibernate.Session;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every failure a shard answers a unit of work with reaches the application as a documented
 * Shardwise exception, never as Hibernate's or Jakarta Persistence's own: each cause produced for
 * real on PostgreSQL (a lock held by another transaction or by a prepared one, a deadlock, a
 * serialization failure, a duplicate key), and every public entry point driven with each SQLSTATE.
 * (A move's fence refusing a single-shard {@code atomically} is in {@code FencingTest}.)
 */
@ShardedPostgres(shards = 2)
class FailureTranslationTest {
  private PostgresTopology pg;
  private SessionFactory sf;
  private ShardedSessions shards;
  /** Accounts on shard0 and shard1. */
  private long a0;
  private long b0;
  private long a1;

  @BeforeEach
  void bank(PostgresTopology pg) {
    this.pg = pg;
    sf = BankFixture.openWithAccounts(pg, 8);
    shards = ShardedSessions.of(sf);
    a0 = BankFixture.key(shards, "shard0", 1);
    b0 = BankFixture.key(shards, "shard0", a0 + 1);
    a1 = BankFixture.key(shards, "shard1", 1);
  }

  @AfterEach
  void close() {
    sf.close();
  }

  private static void shortLockTimeout(Session s) {
    s.doWork(c -> {
      try (Statement st = c.createStatement()) {
        st.execute("SET LOCAL lock_timeout = '300ms'");
      }
    });
  }

  private Connection shard(int index) throws Exception {
    return pg.shard(index).primary().dataSource().getConnection();
  }

  // --- each cause, for real ------------------------------------------------------------------

  @Test
  void aLockTimeoutIsARetryableAbort() throws Exception {
    try (Connection holder = shard(0)) {
      holder.setAutoCommit(false);
      holder.createStatement().execute("SELECT * FROM Account WHERE id = " + a0 + " FOR UPDATE");

      TransactionAbortedException unit = assertThrows(TransactionAbortedException.class, () -> shards.forKey(a0)
          .inTransaction(s -> {
            shortLockTimeout(s);
            s.find(Account.class, a0, LockModeType.PESSIMISTIC_WRITE);
          }));
      assertAbort(unit, "55P03", true);
      assertFalse(unit instanceof CrossShardAbortedException, unit.toString());

      CrossShardAbortedException single = assertThrows(CrossShardAbortedException.class, () -> shards.atomically(tx ->
          tx.on(a0, s -> {
            shortLockTimeout(s);
            s.find(Account.class, a0, LockModeType.PESSIMISTIC_WRITE);
          })));
      assertAbort(single, "55P03", true);
      holder.rollback();
    }
  }

  /** Issue 27 (a): a transfer queued behind a row a prepared transaction holds. */
  @Test
  void aRowHeldByAPreparedTransactionTimesOutAsACrossShardAbort() throws Exception {
    try (Connection holder = shard(0)) {
      holder.setAutoCommit(false);
      holder.createStatement().execute("UPDATE Account SET balance = balance WHERE id = " + a0);
      holder.createStatement().execute("PREPARE TRANSACTION 'test-held-row'");
      holder.setAutoCommit(true);
      try {
        CrossShardAbortedException aborted = assertThrows(CrossShardAbortedException.class, () -> shards.atomically(tx -> {
          tx.on(a0, FailureTranslationTest::shortLockTimeout);
          tx.on(a1, FailureTranslationTest::shortLockTimeout);
          List<Account> accounts = tx.lock(Account.class, a0, a1);
          accounts.get(0).withdraw(1);
          accounts.get(1).deposit(1);
        }));
        assertAbort(aborted, "55P03", true);
      } finally {
        holder.createStatement().execute("ROLLBACK PREPARED 'test-held-row'");
      }
      assertEquals(BankFixture.INITIAL * 8, BankFixture.total(pg), "nothing of the transfer was kept");
    }
  }

  @Test
  void aDeadlockVictimGetsARetryableAbortAndTheOtherCommits() throws Exception {
    CyclicBarrier bothHoldOne = new CyclicBarrier(2);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      // one through ShardRoute, one through atomically: whichever PostgreSQL picks, its abort is translated
      Future<?> route = threads.submit(() -> shards.forKey(a0).inTransaction(s -> {
        s.find(Account.class, a0, LockModeType.PESSIMISTIC_WRITE).deposit(1);
        await(bothHoldOne);
        s.find(Account.class, b0, LockModeType.PESSIMISTIC_WRITE).deposit(1);
      }));
      Future<?> cross = threads.submit(() -> shards.atomically(tx -> tx.on(b0, s -> {
        s.find(Account.class, b0, LockModeType.PESSIMISTIC_WRITE).deposit(1);
        await(bothHoldOne);
        s.find(Account.class, a0, LockModeType.PESSIMISTIC_WRITE).deposit(1);
      })));
      List<Throwable> failures = new ArrayList<>();
      for (Future<?> f : List.of(route, cross)) {
        try {
          f.get(60, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
          failures.add(e.getCause());
        }
      }
      assertEquals(1, failures.size(), "one deadlock victim, one commit: " + failures);
      TransactionAbortedException victim = assertInstanceOf(TransactionAbortedException.class, failures.get(0));
      assertAbort(victim, "40P01", true);
      assertEquals(victim instanceof CrossShardAbortedException, failures.get(0) == unwrap(cross),
          "atomically's victim is a CrossShardAbortedException, a route's a TransactionAbortedException");
    } finally {
      threads.shutdownNow();
      assertTrue(threads.awaitTermination(30, TimeUnit.SECONDS));
    }
    assertEquals(BankFixture.INITIAL * 8 + 2, BankFixture.total(pg), "exactly the winner's two deposits were kept");
  }

  private static Throwable unwrap(Future<?> f) {
    try {
      f.get();
      return null;
    } catch (Exception e) {
      return e.getCause();
    }
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aSerializationFailureIsARetryableAbort() throws Exception {
    try (Connection other = shard(0)) {
      TransactionAbortedException unit = assertThrows(TransactionAbortedException.class, () -> shards.forKey(a0)
          .inTransaction(s -> concurrentlyChanged(s, other)));
      assertAbort(unit, "40001", true);
      CrossShardAbortedException cross = assertThrows(CrossShardAbortedException.class, () -> shards.atomically(tx -> {
        tx.on(a1, s -> s.find(Account.class, a1).deposit(1));
        tx.on(a0, s -> concurrentlyChanged(s, other));
      }));
      assertAbort(cross, "40001", true);
    }
    assertEquals(BankFixture.INITIAL * 8 + 2, BankFixture.total(pg), "only the other transaction's two updates");
  }

  /** In a repeatable-read transaction, reads a0, has {@code other} change it, then writes it. */
  private void concurrentlyChanged(Session s, Connection other) {
    s.doWork(c -> {
      try (Statement st = c.createStatement()) {
        st.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
      }
    });
    Account account = s.find(Account.class, a0);
    try (Statement st = other.createStatement()) {
      st.executeUpdate("UPDATE Account SET balance = balance + 1 WHERE id = " + a0);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
    account.withdraw(1);
    s.flush();
  }

  @Test
  void aStatementTheServerCancelsAtItsTimeoutIsAnUnavailableShardWhicheverClockFiresFirst() {
    Consumer<Session> slow = s -> s.doWork(c -> {
      try (Statement st = c.createStatement()) {
        st.execute("SET LOCAL statement_timeout = 100");
        st.execute("SELECT pg_sleep(2)");
      }
    });
    ShardUnavailableException unit = assertThrows(ShardUnavailableException.class,
        () -> shards.forKey(a0).inTransaction(slow));
    assertEquals("shard0", unit.shardId());
    assertTrue(unit.getMessage().contains("57014"), unit.getMessage());
    ShardUnavailableException crossShard = assertThrows(ShardUnavailableException.class,
        () -> shards.atomically(tx -> tx.on(a0, slow)));
    assertEquals("shard0", crossShard.shardId());
    assertTrue(ShardFailures.retryable(crossShard));
  }

  @Test
  void aDuplicateKeyIsAnAbortThatRetryingCannotMend() {
    TransactionAbortedException unit = assertThrows(TransactionAbortedException.class,
        () -> shards.forKey(a0).inTransaction(s -> s.persist(new Account(a0, 5))));
    assertAbort(unit, "23505", false);
    // one shard: no two-phase commit, the insert fails in the commit's flush
    assertAbort(assertThrows(CrossShardAbortedException.class, () -> shards.atomically(tx ->
        tx.on(a0, s -> s.persist(new Account(a0, 5))))), "23505", false);
    CrossShardAbortedException cross = assertThrows(CrossShardAbortedException.class, () -> shards.atomically(tx -> {
      tx.on(a1, s -> s.find(Account.class, a1).deposit(5));
      tx.on(a0, s -> s.persist(new Account(a0, 5)));
    }));
    assertAbort(cross, "23505", false);
  }

  @Test
  void theWorksOwnExceptionPassesUnchanged() {
    IllegalStateException own = new IllegalStateException("the application's own");
    assertSame(own, assertThrows(IllegalStateException.class, () -> shards.forKey(a0).inTransaction(s -> {
      s.find(Account.class, a0).deposit(1);
      throw own;
    })));
    assertSame(own, assertThrows(IllegalStateException.class, () -> shards.atomically(tx -> {
      tx.on(a0, s -> s.find(Account.class, a0).deposit(1));
      throw own;
    })));
  }

  private static void assertAbort(TransactionAbortedException e, String sqlState, boolean retryable) {
    assertEquals(sqlState, e.sqlState(), e.toString());
    assertEquals(retryable, e.isRetryable(), e.getMessage());
    assertTrue(e.getCause() instanceof jakarta.persistence.PersistenceException, "Hibernate's exception is the cause: "
        + e.getCause());
    assertTrue(e.getMessage().contains("SQLSTATE " + sqlState), e.getMessage());
  }

  // --- every public entry point, every cause ----------------------------------------------------

  /** A unit of work's body that makes its shard answer with {@code sqlState}. */
  private static Consumer<Session> raising(String sqlState, String detail) {
    return s -> s.doWork(c -> {
      try (Statement st = c.createStatement()) {
        st.execute("DO $$ BEGIN RAISE EXCEPTION USING ERRCODE = '" + sqlState + "', MESSAGE = 'raised for the test',"
            + " DETAIL = '" + detail + "'; END $$");
      }
    });
  }

  /**
   * The public entry points that run an application's work on shards, each driven with a body.
   * {@link #everyPublicEntryPointIsDriven} keeps this list complete.
   */
  private Map<String, Consumer<Consumer<Session>>> entryPoints() {
    Map<String, Consumer<Consumer<Session>>> all = new LinkedHashMap<>();
    all.put("ShardRoute.inTransaction", body -> shards.forKey(a0).inTransaction(body));
    all.put("ShardRoute.fromTransaction", body -> shards.forKey(a0).fromTransaction(s -> {
      body.accept(s);
      return null;
    }));
    all.put("ShardRoute.inSession", body -> shards.forKey(a0).inSession(body));
    all.put("ShardRoute.fromSession", body -> shards.forKey(a0).fromSession(s -> {
      body.accept(s);
      return null;
    }));
    all.put("ShardRoute.readOnly().fromTransaction", body -> shards.forKey(a0).readOnly().fromTransaction(s -> {
      body.accept(s);
      return null;
    }));
    all.put("ShardedSessions.atomically (one shard)", body -> shards.atomically(tx -> tx.on(a0, body)));
    all.put("ShardedSessions.atomically (two shards)", body -> shards.atomically(tx -> {
      tx.on(a1, s -> s.find(Account.class, a1).deposit(1));
      tx.on(a0, body);
    }));
    all.put("ShardedSessions.fromAtomically", body -> shards.fromAtomically(tx -> {
      tx.on(a0, body);
      return null;
    }));
    all.put("ReferenceTables.inTransaction", body -> shards.referenceTables().inTransaction(body));
    return all;
  }

  @Test
  void everyEntryPointTranslatesEveryCause() throws Exception {
    Map<String, Boolean> causes = new LinkedHashMap<>();
    causes.put("55P03", true);
    causes.put("40P01", true);
    causes.put("40001", true);
    causes.put("23505", false);
    causes.put("22012", false);
    List<String> wrong = new ArrayList<>();
    entryPoints().forEach((name, entryPoint) -> {
      boolean crossShard = !name.startsWith("ShardRoute");
      causes.forEach((sqlState, retryable) -> {
        RuntimeException thrown = assertThrows(RuntimeException.class, () -> entryPoint.accept(raising(sqlState, "")));
        if (!(thrown instanceof TransactionAbortedException abort) || abort.isRetryable() != retryable
            || !sqlState.equals(abort.sqlState()) || (thrown instanceof CrossShardAbortedException) != crossShard) {
          wrong.add(name + " / " + sqlState + ": " + thrown);
        }
      });
      RuntimeException timedOut = assertThrows(RuntimeException.class, () -> entryPoint.accept(raising("57014", "")));
      if (!(timedOut instanceof ShardUnavailableException unavailable) || unavailable.shardId() == null
          || !unavailable.getMessage().contains("statement_timeout")) {
        wrong.add(name + " / 57014: " + timedOut);
      }
      RuntimeException fenced = assertThrows(RuntimeException.class, () -> entryPoint.accept(
          raising(BucketMovedException.SQLSTATE_MOVED, "bucket=3 owner=shard1")));
      if (!(fenced instanceof BucketMovedException moved) || moved.bucket() != 3 || !"shard1".equals(moved.newOwner())) {
        wrong.add(name + " / " + BucketMovedException.SQLSTATE_MOVED + ": " + fenced);
      }
    });
    assertEquals(List.of(), wrong, "entry points that let a shard's failure out in the wrong type");
    assertEquals(BankFixture.INITIAL * 8, BankFixture.total(pg), "nothing was committed");
  }

  /**
   * The list above covers every public method that runs the application's work on a shard: a method
   * of {@link ShardRoute}, {@link ShardedSessions} or {@link ReferenceTables} taking a callback of a
   * {@link Session} or a {@link CrossShardTransaction}. A new one fails here until it is driven.
   */
  @Test
  void everyPublicEntryPointIsDriven() {
    Set<String> found = new TreeSet<>();
    for (Class<?> type : List.of(ShardRoute.class, ShardedSessions.class, ReferenceTables.class)) {
      for (Method m : type.getMethods()) {
        if (!Modifier.isStatic(m.getModifiers()) && m.getDeclaringClass() == type && takesWork(m)) {
          found.add(type.getSimpleName() + "." + m.getName());
        }
      }
    }
    Set<String> driven = new TreeSet<>();
    entryPoints().keySet().forEach(k -> driven.add(k.replaceAll(" \\(.*\\)", "").replace(".readOnly()", "")));
    assertEquals(found, driven);
  }

  private static boolean takesWork(Method m) {
    for (java.lang.reflect.Type p : m.getGenericParameterTypes()) {
      if (p instanceof java.lang.reflect.ParameterizedType pt
          && (pt.getRawType() == Consumer.class || pt.getRawType() == Function.class)
          && (pt.getActualTypeArguments()[0] == Session.class
              || pt.getActualTypeArguments()[0] == CrossShardTransaction.class)) {
        return true;
      }
    }
    return false;
  }
}
