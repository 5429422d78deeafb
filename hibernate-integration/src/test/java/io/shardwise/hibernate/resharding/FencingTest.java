package io.shardwise.hibernate.resharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A router that missed the write switch (its control-database connection went deaf) is refused by
 * the old owner itself, refreshes its map and writes on the new owner; and a switch that cannot
 * finish within the pause limit is abandoned with writes going on at the source.
 */
@ShardedPostgres(shards = 2, scope = ShardedPostgres.Scope.RUN)
class FencingTest {
  static final String DB = "fence_app";

  PostgresTopology pg;
  SessionFactory sf;
  ShardedSessions shards;
  String s0;
  String s1;
  long movingMerchant;

  @BeforeEach
  void shop(PostgresTopology pg) throws Exception {
    this.pg = pg;
    MoveFixture.freshDatabases(pg, DB);
    sf = MoveFixture.sessionFactory(pg, DB);
    shards = ShardedSessions.of(sf);
    s0 = pg.shard(0).primary().jdbcUrl(DB);
    s1 = pg.shard(1).primary().jdbcUrl(DB);
    movingMerchant = 1;
    while (MoveFixture.bucketOf(movingMerchant) > 170) {
      movingMerchant++;
    }
    MoveFixture.seedMerchants(shards, 50);
  }

  @AfterEach
  void close() {
    if (sf != null) {
      sf.close();
    }
  }

  static Set<Integer> moving() {
    return MoveFixture.bucketsUpTo(170);
  }

  @Test
  void aRouterWithAStaleMapIsFencedRefreshesAndLosesNothing() throws Exception {
    Resharding moves = shards.resharding();
    ReshardWorkflow w = moves.start(ReshardRequest.move("s0", "s1", moving(), List.of()), p -> { });
    assertEquals(ReshardPhase.VERIFIED, w.phase(), String.valueOf(w.lastError()));

    int controlPort = pg.shard(0).primary().port();
    try (TcpProxy proxy = new TcpProxy(controlPort)) {
      String staleControl = MoveFixture.controlUrl(pg, DB).replace(":" + controlPort + "/", ":" + proxy.port() + "/");
      SessionFactory staleFactory = deafRouter(staleControl);
      // a second deaf router, for a cross-shard transaction whose rows all sit on the fenced shard
      SessionFactory staleAtomicFactory = deafRouter(staleControl);
      try {
        ShardedSessions stale = ShardedSessions.of(staleFactory);
        ShardedSessions staleAtomic = ShardedSessions.of(staleAtomicFactory);
        assertEquals("s0", stale.shardFor(movingMerchant));
        assertEquals("s0", staleAtomic.shardFor(movingMerchant));
        proxy.silenceOpenConnections();

        SwitchResult result = moves.switchWrites(w.id());
        assertTrue(result.switched(), result.describe());
        org.awaitility.Awaitility.await().until(() -> shards.shardFor(movingMerchant).equals("s1"));
        assertEquals("s0", stale.shardFor(movingMerchant), "the deaf router still routes with the old map");

        long key = movingMerchant;
        BucketMovedException fenced = assertThrows(BucketMovedException.class, () -> stale.forKey(key)
            .inTransaction(s -> s.persist(new PurchaseOrder(key * 1000 + 1, key, "from the stale router"))));
        assertEquals("s1", fenced.newOwner(), fenced.getMessage());
        assertEquals(MoveFixture.bucketOf(key), fenced.bucket());
        assertEquals("s1", stale.shardFor(key), "the router refreshed its map when it was fenced");
        assertEquals(0, MoveFixture.count(s0, "SELECT count(*) FROM purchase_order WHERE id = ?", key * 1000 + 1));

        // atomically with one participant commits it without two-phase commit: the fence refuses its
        // commit's flush, and that is the same BucketMovedException (it was Hibernate's GenericJDBCException)
        BucketMovedException fencedAtomic = assertThrows(BucketMovedException.class, () -> staleAtomic.atomically(tx ->
            tx.on(key, s -> s.persist(new PurchaseOrder(key * 1000 + 2, key, "atomically from the stale router")))));
        assertEquals("s1", fencedAtomic.newOwner(), fencedAtomic.getMessage());
        assertEquals("s1", staleAtomic.shardFor(key), "the router refreshed its map when it was fenced");
        assertEquals(0, MoveFixture.count(s0, "SELECT count(*) FROM purchase_order WHERE id = ?", key * 1000 + 2));

        stale.forKey(key).inTransaction(s -> s.persist(new PurchaseOrder(key * 1000 + 1, key, "from the stale router")));
        assertEquals(1, MoveFixture.count(s1, "SELECT count(*) FROM purchase_order WHERE id = ?", key * 1000 + 1));
        // the source's copy (kept for a rollback until complete) receives it only by reverse replication
        org.awaitility.Awaitility.await().until(() -> MoveFixture.count(s0,
            "SELECT count(*) FROM purchase_order WHERE id = ?", key * 1000 + 1) == 1);
        // updates and deletes through the old owner are refused too
        try (Connection c = DriverManager.getConnection(s0, "postgres", null)) {
          var e = assertThrows(java.sql.SQLException.class, () -> c.createStatement().executeUpdate(
              "DELETE FROM purchase_order WHERE id = " + key * 1000));
          assertEquals(BucketMovedException.SQLSTATE_MOVED, e.getSQLState(), e.getMessage());
        }
      } finally {
        // the transaction log's connection is still silenced: closing retires the coordinator through
        // it, which must end at the socket timeout (2 s here), not wait for ever
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(30), () -> {
          staleFactory.close();
          staleAtomicFactory.close();
        }, "closing a session factory whose control database went silent");
      }
    }
    assertEquals(ReshardPhase.COMPLETED, moves.complete(w.id(), p -> { }).phase());
    assertEquals(0, MoveFixture.count(s0, "SELECT count(*) FROM pg_replication_slots"));
  }

  /** A session factory whose router stops hearing of map changes once the proxy silences its connections. */
  SessionFactory deafRouter(String staleControl) {
    return MoveFixture.builder(pg, DB, staleControl)
        .property("shardwise.control.version_check_interval_ms", "3600000")
        .property("shardwise.control.router_lease_ms", "0") // deaf for good: no lease, fenced by the shard
        .property("shardwise.primary.statement_timeout_ms", "1000")
        .property("shardwise.primary.socket_timeout_ms", "2000").buildSessionFactory();
  }

  /** Moves with the default pause limit of 100 ms. */
  Resharding withDefaultLimit() {
    Map<String, Object> settings = new HashMap<>(MoveFixture.settings(pg, DB));
    settings.remove("shardwise.reshard.pause_limit_ms");
    return Shardwise.resharding(settings);
  }

  @Test
  void aSwitchThatCannotCatchUpWithinTheLimitIsAbandonedAndWritesGoOnAtTheSource() throws Exception {
    Resharding moves = shards.resharding();
    ReshardWorkflow w = moves.start(ReshardRequest.move("s0", "s1", moving(), List.of()), p -> { });
    assertEquals(ReshardPhase.VERIFIED, w.phase(), String.valueOf(w.lastError()));
    // the target stops applying: catch-up cannot finish
    MoveFixture.execute(s1, "ALTER SUBSCRIPTION " + w.subscription() + " DISABLE");
    long t0 = System.nanoTime();
    SwitchResult result = withDefaultLimit().switchWrites(w.id());
    long tookMillis = (System.nanoTime() - t0) / 1_000_000;
    assertFalse(result.switched(), result.describe());
    assertNotNull(result.reason());
    assertTrue(result.reason().contains("within 100 ms"), result.describe());
    // given up at the limit, not after the 60 s a marker may otherwise take (a loaded machine stretches the
    // last check's round trip, so the bound is loose: the mover's own figures are in the description)
    assertTrue(result.pauseMillis() < 100 + 1_000, "the pause is bounded by the 100 ms limit: " + result.describe());
    assertTrue(tookMillis < 10_000, "switchWrites returned after " + tookMillis + " ms");
    assertEquals(ReshardPhase.VERIFIED, moves.status(w.id()).workflow().phase());
    assertEquals("s0", shards.shardFor(movingMerchant));
    long key = movingMerchant;
    shards.forKey(key).inTransaction(s -> s.persist(new PurchaseOrder(key * 1000 + 2, key, "after the abandoned switch")));
    assertEquals(1, MoveFixture.count(s0, "SELECT count(*) FROM purchase_order WHERE id = ?", key * 1000 + 2));

    // an in-flight transaction holding a moving bucket past the limit: the drain gives up, writes go on
    MoveFixture.execute(s1, "ALTER SUBSCRIPTION " + w.subscription() + " ENABLE");
    org.hibernate.Session open = shards.forKey(key).openSession();
    try {
      open.beginTransaction();
      open.find(PurchaseOrder.class, key * 1000).setCustomer("held open");
      open.flush();
      SwitchResult drained = withDefaultLimit().switchWrites(w.id());
      assertFalse(drained.switched(), drained.describe());
      assertTrue(drained.reason().contains("in-flight"), drained.describe());
      open.getTransaction().commit();
    } finally {
      open.close();
    }
    SwitchResult switched = moves.switchWrites(w.id());
    assertTrue(switched.switched(), switched.describe());
    assertEquals(ReshardPhase.COMPLETED, moves.complete(w.id(), p -> { }).phase());
    assertEquals(List.of("held open"), MoveFixture.strings(s1, "SELECT customer FROM purchase_order WHERE id = " + key * 1000));
  }

  @Test
  @Tag("long")
  void aMapChangeThatCannotBeMadeIsGivenUpAndWritesGoOnAtTheSource() throws Exception {
    Resharding moves = shards.resharding();
    ReshardWorkflow w = moves.start(ReshardRequest.move("s0", "s1", moving(), List.of()), p -> { });
    assertEquals(ReshardPhase.VERIFIED, w.phase(), String.valueOf(w.lastError()));
    // another change of the shard map holds its version row: the switch's map change has to wait
    try (Connection blocker = DriverManager.getConnection(MoveFixture.controlUrl(pg, DB), "postgres", null)) {
      blocker.setAutoCommit(false);
      blocker.createStatement().execute("SELECT version FROM shardwise.map_version FOR UPDATE");
      // staged before the freeze (or made inside it): either way the switch gives up instead of waiting
      SwitchResult result = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(60),
          () -> moves.switchWrites(w.id()), "the switch must give up within its pause limit, not wait for the blocker");
      assertFalse(result.switched(), result.describe());
      assertTrue(result.reason().contains("shard map"), result.describe());
      blocker.rollback();
    }
    assertEquals(ReshardPhase.VERIFIED, moves.status(w.id()).workflow().phase());
    assertEquals("s0", shards.shardFor(movingMerchant));
    assertEquals(List.of("open"), MoveFixture.strings(s0, "SELECT DISTINCT state FROM shardwise_reshard.fence"));
    assertEquals(List.of("fenced"), MoveFixture.strings(s1, "SELECT DISTINCT state FROM shardwise_reshard.fence"));
    long key = movingMerchant;
    shards.forKey(key).inTransaction(s -> s.find(PurchaseOrder.class, key * 1000).setCustomer("after the undone switch"));
    assertEquals(List.of("after the undone switch"), MoveFixture.strings(s0, "SELECT customer FROM purchase_order"
        + " WHERE id = " + key * 1000));

    SwitchResult switched = moves.switchWrites(w.id());
    assertTrue(switched.switched(), switched.describe());
    assertTrue(switched.mapMillis() > 0 && switched.fenceMillis() > 0, "every step is measured: " + switched.describe());
    // this router hears of the new map by the control database's notification, a moment after the switch
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
        .until(() -> shards.shardFor(movingMerchant).equals("s1"));
    assertEquals(ReshardPhase.COMPLETED, moves.complete(w.id(), p -> { }).phase());
    assertEquals(List.of("after the undone switch"), MoveFixture.strings(s1, "SELECT customer FROM purchase_order"
        + " WHERE id = " + key * 1000));
  }

  @Test
  void verificationNamesTheDifferingKeysTheSwitchRefusesAndReadsRollBack() throws Exception {
    Resharding moves = shards.resharding();
    ReshardWorkflow w = moves.start(ReshardRequest.move("s0", "s1", moving(), List.of()), p -> { });
    assertEquals(ReshardPhase.VERIFIED, w.phase(), String.valueOf(w.lastError()));
    long key = movingMerchant;
    int port0 = pg.shard(0).primary().port();
    int port1 = pg.shard(1).primary().port();

    moves.switchReads(w.id());
    org.awaitility.Awaitility.await().until(() -> shards.shardMap().readOwnerOf(MoveFixture.bucketOf(key)).equals("s1"));
    assertEquals(port1, MoveFixture.serverPort(shards, key, true));
    moves.rollback(w.id());
    org.awaitility.Awaitility.await().until(() -> !shards.shardMap().hasSwitchedReads());
    assertEquals(port0, MoveFixture.serverPort(shards, key, true), "reads are back on the source");
    assertEquals(ReshardPhase.VERIFIED, moves.status(w.id()).workflow().phase());

    // a row that differs on the target behind replication's back
    try (Connection c = DriverManager.getConnection(s1, "postgres", null)) {
      c.createStatement().execute("SET shardwise.bypass_fence = 'on'");
      c.createStatement().executeUpdate("UPDATE purchase_order SET customer = 'tampered' WHERE id = " + key * 1000);
    }
    VerificationReport report = moves.verify(w.id(), p -> { });
    assertFalse(report.equal(), report.describe());
    assertEquals(1, report.differences().size(), report.describe());
    VerificationReport.Difference d = report.differences().get(0);
    assertEquals("purchase_order", d.table());
    assertEquals(MoveFixture.bucketOf(key), d.bucket());
    assertEquals(List.of("(" + key * 1000 + ")"), d.keys());
    ReshardingException refused = assertThrows(ReshardingException.class, () -> moves.switchWrites(w.id()));
    assertTrue(refused.getMessage().contains("purchase_order:" + MoveFixture.bucketOf(key) + ":different"),
        refused.getMessage());
    assertEquals("s0", shards.shardFor(key));

    // repaired by hand on the target (replication cannot: the row it would update no longer matches), the
    // verification passes, the switch goes, and later writes flow as usual
    try (Connection c = DriverManager.getConnection(s1, "postgres", null)) {
      c.createStatement().execute("SET shardwise.bypass_fence = 'on'");
      c.createStatement().executeUpdate("UPDATE purchase_order SET customer = 'first' WHERE id = " + key * 1000);
    }
    assertTrue(moves.verify(w.id(), p -> { }).equal());
    shards.forKey(key).inTransaction(s -> s.find(PurchaseOrder.class, key * 1000).setCustomer("repaired"));
    assertTrue(moves.switchWrites(w.id()).switched());
    assertEquals(ReshardPhase.COMPLETED, moves.complete(w.id(), p -> { }).phase());
    assertEquals(List.of("repaired"), MoveFixture.strings(s1, "SELECT customer FROM purchase_order WHERE id = " + key * 1000));
  }
}
