package io.shardwise.hibernate;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.harness.ShardedUnit;
import io.shardwise.hibernate.readwrite.ConsistencyScope;
import io.shardwise.hibernate.readwrite.ConsistencyTokenException;
import io.shardwise.hibernate.readwrite.ReplicaStatus;
import io.shardwise.hibernate.readwrite.RowLockInReadOnlySessionException;
import io.shardwise.hibernate.rw.PatientProfile;
import io.shardwise.hibernate.rw.Product;
import io.shardwise.hibernate.rw.Profile;
import io.shardwise.hibernate.rw.Sale;
import io.shardwise.hibernate.rw.TimedProfile;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import jakarta.persistence.LockModeType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import org.hibernate.LockMode;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Read/write splitting against real streaming replicas with real lag: each replica applies WAL
 * 500 ms late, so a read that a replica serves right after a write shows the old row unless
 * Shardwise keeps the scope consistent.
 */
@ShardedPostgres(shards = 2, replicas = 1, settings = "log_statement='all'")
class ReadWriteSplittingTest {
  private static final Duration LAG = Duration.ofMillis(500);
  private static final int ITERATIONS = 200;
  /** LSN pinning waits for the replica to catch up (a LAG each time) after every this many writes. */
  private static final int CATCH_UP_EVERY = 20;
  /** Writes each followed by a read that waits for the replica (a LAG each). */
  private static final int BOUNDED_WAITS = 5;
  private static final String SECRET = "0123456789abcdef0123456789abcdef-test-only";
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;
  private static final AtomicLong ids = new AtomicLong(1);

  @BeforeAll
  static void start(PostgresTopology pg) {
    sessionFactory = builder(pg).schema("create").buildSessionFactory();
    shards = ShardedSessions.of(sessionFactory);
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
    for (PostgresShard shard : pg.shards()) {
      shard.replica(0).setApplyDelay(LAG);
    }
    shards.checkReplicasNow();
  }

  static Shardwise.Builder builder(PostgresTopology pg) {
    return builder(pg, SECRET);
  }

  static Shardwise.Builder builder(PostgresTopology pg, String consistencySecret) {
    return ShardedUnit.configure(pg, true)
        .entities(Profile.class, TimedProfile.class, PatientProfile.class, Product.class, Sale.class)
        .property(ShardwiseSettings.RYW_SECRET, consistencySecret);
  }

  @AfterAll
  static void stop() {
    sessionFactory.close();
  }

  @AfterEach
  void replicasBackInRotation(PostgresTopology pg) {
    for (PostgresShard shard : pg.shards()) {
      PostgresNode replica = shard.replica(0);
      replica.start();
      replica.resumeReplay();
      replica.setApplyDelay(LAG);
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      shards.checkReplicasNow();
      return shards.replicaStatus().stream().allMatch(ReplicaStatus::healthy);
    });
  }

  // --- the profile anomaly --------------------------------------------------------------

  @Test
  void withoutPinningAReplicaReadRightAfterAnUpdateShowsTheOldName() {
    long user = ids.getAndIncrement();
    shards.forKey(user).inTransaction(s -> s.persist(new Profile(user, "v0")));
    int stale = 0;
    long[] before = shards.readCounts();
    for (int i = 1; i <= ITERATIONS; i++) {
      String name = "v" + i;
      shards.forKey(user).inTransaction(s -> s.find(Profile.class, user).setName(name));
      String seen = shards.forKey(user).readOnly().fromSession(s -> nameOf(s.find(Profile.class, user)));
      stale += seen.equals(name) ? 0 : 1;
    }
    long replicaReads = shards.readCounts()[0] - before[0];
    System.out.printf("[ReadWriteSplittingTest] no pinning: %d of %d replica reads were stale%n", stale, ITERATIONS);
    assertTrue(replicaReads >= ITERATIONS * 9 / 10, "read-only sessions were served by the replica: " + replicaReads);
    assertTrue(stale > ITERATIONS * 9 / 10, "the anomaly is real: " + stale + " stale reads of " + ITERATIONS);
  }

  @Test
  void lsnPinningReadsItsOwnWritesAndStillUsesTheReplica() {
    assertNoStaleReads(user -> new Profile(user, "v0"), Profile.class, "LSN", true);
  }

  @Test
  void timePinningReadsItsOwnWritesFromThePrimaryDuringTheWindow() {
    assertNoStaleReads(user -> new TimedProfile(user, "v0"), TimedProfile.class, "TIME", false);
  }

  private <T> void assertNoStaleReads(LongFunction<T> create, Class<T> type, String mode, boolean awaitReplica) {
    long user = ids.getAndIncrement();
    ConsistencyScope scope = shards.consistency().scope("user:" + user);
    shards.forKey(user).within(scope).inTransaction(s -> s.persist(create.apply(user)));
    int stale = 0;
    long replicaServed = 0;
    long reads = 0;
    for (int i = 1; i <= ITERATIONS; i++) {
      String name = "v" + i;
      shards.forKey(user).within(scope).inTransaction(s -> rename(s.find(type, user), name));
      long before = shards.readCounts()[0];
      String seen = shards.forKey(user).within(scope).readOnly().fromSession(s -> nameOf(s.find(type, user)));
      stale += seen.equals(name) ? 0 : 1;
      replicaServed += shards.readCounts()[0] - before;
      reads++;
      if (awaitReplica && i % CATCH_UP_EVERY == 0) {
        // once the replica has caught up with the pin, the scope's reads go back to it
        await().atMost(Duration.ofSeconds(10)).until(() -> {
          long r = shards.readCounts()[0];
          String again = shards.forKey(user).within(scope).readOnly().fromSession(s -> nameOf(s.find(type, user)));
          assertEquals(name, again, "a read after catch-up is fresh too");
          return shards.readCounts()[0] > r;
        });
        replicaServed++;
        reads++;
      }
    }
    System.out.printf("[ReadWriteSplittingTest] %s pinning: %d stale of %d reads after writes; %d of %d reads served"
        + " by the replica (%.0f%%)%n", mode, stale, ITERATIONS, replicaServed, reads, 100.0 * replicaServed / reads);
    assertEquals(0, stale, mode + " pinning must never return an old name");
    if (awaitReplica) {
      assertTrue(replicaServed >= ITERATIONS / CATCH_UP_EVERY, "LSN mode uses the replica once it caught up: " + replicaServed);
    }
  }

  @Test
  void aBoundedWaitLetsTheReplicaServeTheScopeEvenRightAfterAWrite() {
    long user = ids.getAndIncrement();
    ConsistencyScope scope = shards.consistency().scope("patient:" + user);
    shards.forKey(user).within(scope).inTransaction(s -> s.persist(new PatientProfile(user, "v0")));
    long before = shards.readCounts()[0];
    for (int i = 1; i <= BOUNDED_WAITS; i++) {
      String name = "v" + i;
      shards.forKey(user).within(scope).inTransaction(s -> s.find(PatientProfile.class, user).setName(name));
      assertEquals(name, shards.forKey(user).within(scope).readOnly()
          .fromSession(s -> s.find(PatientProfile.class, user).getName()));
    }
    assertEquals(BOUNDED_WAITS, shards.readCounts()[0] - before, "every read waited for the replica instead of using the primary");
  }

  @Test
  void hibernatesOwnReadOnlySessionsAreServedByTheReplicaAndWritesByThePrimary(PostgresTopology pg) {
    long user = ids.getAndIncrement();
    shards.forKey(user).inTransaction(s -> s.persist(new Profile(user, "plain hibernate")));
    int shard = Integer.parseInt(shards.shardFor(user).substring(5));
    pg.shard(shard).awaitReplicasCaughtUp(Duration.ofSeconds(30));

    long[] before = shards.readCounts();
    try (ShardContext.Scope scope = ShardContext.use(shards.shardFor(user));
        org.hibernate.Session ro = sessionFactory.withOptions().readOnly(true).openSession();
        org.hibernate.Session rw = sessionFactory.openSession()) {
      assertEquals("plain hibernate", ro.find(Profile.class, user).getName());
      assertEquals(pg.shard(shard).replica(0).port(), serverPort(ro), "withOptions().readOnly(true) reads a replica");
      assertEquals(pg.shard(shard).primary().port(), serverPort(rw), "a read-write session is on the primary");
    }
    assertTrue(shards.readCounts()[0] > before[0], "replica checkouts are counted");
  }

  private static int serverPort(org.hibernate.Session session) {
    return session.createNativeQuery("select inet_server_port()", Integer.class).getSingleResult();
  }

  // --- tokens -----------------------------------------------------------------------------

  @Test
  void aTokenCarriesTheScopeToAnotherInstance(PostgresTopology pg) {
    try (SessionFactory other = builder(pg).buildSessionFactory()) {
      ShardedSessions instanceB = ShardedSessions.of(other);
      long user = ids.getAndIncrement();
      ConsistencyScope scope = shards.consistency().scope("user:" + user);
      shards.forKey(user).within(scope).inTransaction(s -> s.persist(new Profile(user, "written on A")));
      String token = shards.consistency().token(scope);

      ConsistencyScope onB = instanceB.consistency().fromToken(token);
      assertEquals(scope, onB);
      String seen = instanceB.forKey(user).within(onB).readOnly().fromSession(s -> s.find(Profile.class, user).getName());
      assertEquals("written on A", seen, "instance B honours the pin it received in the token");

    }
  }

  @Test
  void forgedTamperedAndExpiredTokensAreRejected(PostgresTopology pg) {
    long user = ids.getAndIncrement();
    ConsistencyScope scope = shards.consistency().scope("user:" + user);
    shards.forKey(user).within(scope).inTransaction(s -> s.persist(new Profile(user, "x")));
    String token = shards.consistency().token(scope);

    String[] parts = token.split("\\.");
    String tampered = parts[0] + "." + parts[1].substring(0, parts[1].length() - 2) + "AA." + parts[2];
    assertTrue(assertThrows(ConsistencyTokenException.class, () -> shards.consistency().fromToken(tampered))
        .getMessage().contains("signature does not match"));
    assertTrue(assertThrows(ConsistencyTokenException.class, () -> shards.consistency().fromToken("v1.abc"))
        .getMessage().contains("Not a Shardwise consistency token"));

    try (SessionFactory otherSecret = builder(pg, "another-secret-another-secret-another-secret")
        .buildSessionFactory()) {
      assertThrows(ConsistencyTokenException.class, () -> ShardedSessions.of(otherSecret).consistency().fromToken(token),
          "a token signed with another secret is a forgery");
    }

    try (SessionFactory shortLived = builder(pg).property(ShardwiseSettings.RYW_PIN_TTL, "1000").buildSessionFactory()) {
      ShardedSessions quick = ShardedSessions.of(shortLived);
      ConsistencyScope s2 = quick.consistency().scope("user:" + user);
      quick.forKey(user).within(s2).inTransaction(s -> s.find(Profile.class, user).setName("y"));
      String expiring = quick.consistency().token(s2);
      long expiresAt = quick.consistency().pins(s2).values().iterator().next().expiresAtMillis();
      await().atMost(Duration.ofSeconds(5)).until(() -> System.currentTimeMillis() > expiresAt);
      assertTrue(assertThrows(ConsistencyTokenException.class, () -> quick.consistency().fromToken(expiring))
          .getMessage().contains("expired"));
    }
  }

  // --- row locks and the flash sale ----------------------------------------------------------

  @Test
  void everyFormOfRowLockIsRefusedInAReadOnlySessionBeforeSql(PostgresTopology pg) {
    long sku = 777_001;
    shards.forKey(sku).inTransaction(s -> s.persist(new Product(sku, 3)));
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
    ShardRoute ro = shards.forKey(sku).readOnly();
    List<Callable<Object>> attempts = List.of(
        () -> ro.fromTransaction(s -> s.find(Product.class, sku, LockModeType.PESSIMISTIC_WRITE)),
        () -> ro.fromTransaction(s -> s.find(Product.class, sku, LockModeType.PESSIMISTIC_READ)),
        () -> ro.fromTransaction(s -> {
          Product p = s.find(Product.class, sku);
          s.lock(p, LockMode.PESSIMISTIC_WRITE);
          return p;
        }),
        () -> ro.fromTransaction(s -> {
          Product p = s.find(Product.class, sku);
          s.refresh(p, LockModeType.PESSIMISTIC_WRITE);
          return p;
        }),
        () -> ro.fromTransaction(s -> s.createSelectionQuery("from Product where sku = :s", Product.class)
            .setParameter("s", sku).setLockMode(LockModeType.PESSIMISTIC_WRITE).getResultList()),
        () -> ro.fromTransaction(s -> s.createNativeQuery("select * from Product where sku = " + sku + " FOR UPDATE",
            Product.class).getResultList()),
        () -> ro.fromSession(s -> s.createNativeQuery("select stock from Product where sku = " + sku
            + " for key share", Integer.class).getResultList()),
        () -> ro.fromSession(s -> s.doReturningWork(c -> {
          try (java.sql.Statement plain = c.createStatement()) {
            assertSame(c, plain.getConnection(), "a statement answers with the guarded connection");
            return plain.executeQuery("select stock from product where sku = " + sku + " for share");
          }
        })),
        () -> ro.fromSession(s -> s.doReturningWork(c -> {
          try (java.sql.Statement plain = c.createStatement()) {
            plain.addBatch("select stock from product p where p.sku = " + sku + " for no key update");
            return plain.executeBatch();
          }
        })));
    for (Callable<Object> attempt : attempts) {
      Exception e = assertThrows(Exception.class, attempt::call);
      Throwable cause = e;
      while (!(cause instanceof RowLockInReadOnlySessionException) && cause.getCause() != null) {
        cause = cause.getCause();
      }
      assertTrue(cause instanceof RowLockInReadOnlySessionException, () -> "expected a refused lock, got " + e);
      assertTrue(cause.getMessage().contains("Product (table product)"), cause.getMessage());
      assertTrue(cause.getMessage().contains("read-write session"), cause.getMessage());
    }
    assertEquals(1, ro.fromSession(s -> s.createSelectionQuery("from Product where sku = :s and 'for update' <> ''",
        Product.class).setParameter("s", sku).getResultList()).size(), "text that merely mentions FOR UPDATE is fine");
  }

  @Test
  void theFlashSaleNeverOversellsWhileTheReplicaLags(PostgresTopology pg) throws Exception {
    long sku = 900_001;
    int units = 5;
    int buyers = 24;
    shards.forKey(sku).inTransaction(s -> s.persist(new Product(sku, units)));
    int shardIndex = Integer.parseInt(shards.shardFor(sku).substring(5));
    PostgresNode replica = pg.shard(shardIndex).replica(0);
    PostgresNode primary = pg.shard(shardIndex).primary();

    String naive = shards.forKey(sku).readOnly().fromSession(s -> "replica says stock=" + s.find(Product.class, sku));
    System.out.println("[ReadWriteSplittingTest] " + naive);

    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<Boolean>> checkouts = new ArrayList<>();
    AtomicLong saleIds = new AtomicLong(1);
    for (int b = 0; b < buyers; b++) {
      String buyer = "buyer" + b;
      checkouts.add(pool.submit(() -> shards.forKey(sku).fromTransaction(s -> {
        Product p = s.find(Product.class, sku, LockModeType.PESSIMISTIC_WRITE);
        if (p.getStock() <= 0) {
          return false;
        }
        p.take();
        s.persist(new Sale(saleIds.getAndIncrement(), sku, buyer));
        return true;
      })));
    }
    int sold = 0;
    for (Future<Boolean> f : checkouts) {
      sold += f.get() ? 1 : 0;
    }
    pool.shutdown();

    assertEquals(units, sold, "exactly as many orders as units");
    int stockLeft = shards.forKey(sku).fromSession(s -> s.find(Product.class, sku).getStock());
    long sales = shards.forKey(sku).fromSession(s -> s.createSelectionQuery(
        "select count(*) from Sale where sku = :s", Long.class).setParameter("s", sku).getSingleResult());
    assertEquals(0, stockLeft, "stock never goes negative, and every unit is sold");
    assertEquals(units, sales);

    pg.shard(shardIndex).awaitReplicasCaughtUp(Duration.ofSeconds(30));
    List<String> replicaLocks = lockStatements(replica);
    List<String> primaryLocks = lockStatements(primary);
    System.out.printf("[ReadWriteSplittingTest] flash sale: %d of %d buyers served; row-lock statements in the"
        + " primary's log: %d, in the replica's log: %d%n", sold, buyers, primaryLocks.size(), replicaLocks.size());
    assertFalse(primaryLocks.isEmpty(), "the check can see lock statements: the primary logged them");
    assertEquals(List.of(), replicaLocks, "no row-lock statement ever reached the replica");
  }

  private static List<String> lockStatements(PostgresNode node) {
    return node.logTail(1_000_000).stream()
        .filter(l -> l.contains("statement:") || l.contains("execute"))
        .filter(l -> l.toLowerCase().matches(".*\\bfor\\s+(no\\s+key\\s+update|update|share|key\\s+share)\\b.*"))
        .toList();
  }

  // --- replica health -------------------------------------------------------------------------

  @Test
  void aPausedAndAKilledReplicaLeaveRotationAndReadsGoOn(PostgresTopology pg) {
    long user = ids.getAndIncrement();
    shards.forKey(user).inTransaction(s -> s.persist(new Profile(user, "steady")));
    int shardIndex = Integer.parseInt(shards.shardFor(user).substring(5));
    PostgresNode replica = pg.shard(shardIndex).replica(0);
    pg.shard(shardIndex).awaitReplicasCaughtUp(Duration.ofSeconds(30));

    replica.pauseReplay();
    shards.checkReplicasNow();
    ReplicaStatus paused = statusOf(replica);
    assertFalse(paused.healthy());
    assertEquals("replay paused", paused.reason());
    assertReadsGoOnFromThePrimary(user);

    replica.resumeReplay();
    await().atMost(Duration.ofSeconds(10)).until(() -> {
      shards.checkReplicasNow();
      return statusOf(replica).healthy();
    });

    replica.kill();
    assertReadsGoOnFromThePrimary(user);
    shards.checkReplicasNow();
    assertTrue(statusOf(replica).reason().startsWith("unreachable") || statusOf(replica).reason().startsWith("no connection"),
        statusOf(replica).reason());

    replica.start();
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      shards.checkReplicasNow();
      return statusOf(replica).healthy();
    });
    long before = shards.readCounts()[0];
    assertEquals("steady", shards.forKey(user).readOnly().fromSession(s -> s.find(Profile.class, user).getName()));
    assertEquals(before + 1, shards.readCounts()[0], "the recovered replica serves again");
  }

  @Test
  void theFirstWriteAfterAQuietSpellDoesNotMakeAnIdleReplicaLookLagging(PostgresTopology pg) {
    try (SessionFactory strict = builder(pg).property(ShardwiseSettings.REPLICA_MAX_LAG_MS, "1000").buildSessionFactory()) {
      ShardedSessions strictShards = ShardedSessions.of(strict);
      long user = ids.getAndIncrement();
      strictShards.forKey(user).inTransaction(s -> s.persist(new Profile(user, "quiet")));
      int shard = Integer.parseInt(strictShards.shardFor(user).substring(5));
      pg.shard(shard).awaitReplicasCaughtUp(Duration.ofSeconds(30));
      long quietUntil = System.currentTimeMillis() + 1500;
      await().atMost(Duration.ofSeconds(5)).until(() -> {
        strictShards.checkReplicasNow();
        return System.currentTimeMillis() > quietUntil;
      });

      strictShards.forKey(user).inTransaction(s -> s.find(Profile.class, user).setName("after the quiet spell"));
      strictShards.checkReplicasNow();

      ReplicaStatus status = strictShards.replicaStatus().stream()
          .filter(r -> r.url().equals(pg.shard(shard).replica(0).jdbcUrl())).findFirst().orElseThrow();
      assertTrue(status.healthy(), "1.5 s without commits is not 1.5 s of lag: " + status);
    }
  }

  private static void assertReadsGoOnFromThePrimary(long user) {
    long[] before = shards.readCounts();
    for (int i = 0; i < 20; i++) {
      assertEquals("steady", shards.forKey(user).readOnly().fromSession(s -> s.find(Profile.class, user).getName()));
    }
    long[] after = shards.readCounts();
    assertEquals(20, after[1] - before[1], "all 20 reads were served by the primary, without an error");
  }

  private static ReplicaStatus statusOf(PostgresNode replica) {
    return shards.replicaStatus().stream().filter(s -> s.url().equals(replica.jdbcUrl())).findFirst().orElseThrow();
  }

  private static void rename(Object profile, String name) {
    if (profile instanceof Profile p) {
      p.setName(name);
    } else if (profile instanceof TimedProfile p) {
      p.setName(name);
    }
  }

  private static String nameOf(Object profile) {
    if (profile == null) {
      return "(no row yet)";
    }
    return profile instanceof Profile p ? p.getName() : ((TimedProfile) profile).getName();
  }
}
