package io.shardwise.hibernate.resharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.routing.ShardMapStaleException;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.time.Duration;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A router cut off from the control database (only its control connections, through a proxy) while
 * a move runs: the mover waits for it by name until its lease runs out instead of a blind grace
 * period; the router then refuses scatter-gather and reads and writes by key with
 * {@link ShardMapStaleException} (never a double count, never a write to the old owner after
 * {@code complete}); once it reaches the control database again it loads the newest map and
 * answers correctly.
 */
@ShardedPostgres(shards = 2)
class RouterLeaseTest {
  static final String DB = "lease_app";
  /** The cut-off router's lease: long enough that the mover sees it live after its set-up. */
  static final long LEASE_MS = 9000;
  static final int ORDERS = 50;

  SessionFactory sf;

  @AfterEach
  void close() {
    if (sf != null) {
      sf.close();
    }
  }

  static long scatterCount(ShardedSessions sessions) {
    return sessions.scatter().createQuery("select count(o) from PurchaseOrder o", Long.class).getSingleResult();
  }

  @Test
  void aRouterCutOffFromTheControlDatabaseIsWaitedForThenRefusesUntilItReconnects(PostgresTopology pg)
      throws Exception {
    MoveFixture.freshDatabases(pg, DB);
    sf = MoveFixture.sessionFactory(pg, DB);
    ShardedSessions shards = ShardedSessions.of(sf);
    MoveFixture.seedMerchants(shards, ORDERS);
    String s0 = pg.shard(0).primary().jdbcUrl(DB);
    String s1 = pg.shard(1).primary().jdbcUrl(DB);
    long movingMerchant = 1;
    while (MoveFixture.bucketOf(movingMerchant) > 170) { // buckets 0..170 move from s0 to s1
      movingMerchant++;
    }
    Resharding moves = shards.resharding();
    String control = MoveFixture.controlUrl(pg, DB);
    int controlPort = pg.shard(0).primary().port();
    long key = movingMerchant;
    try (TcpProxy proxy = new TcpProxy(controlPort)) {
      String proxied = control.replace(":" + controlPort + "/", ":" + proxy.port() + "/");
      SessionFactory cutOffFactory = MoveFixture.builder(pg, DB, proxied)
          .property("shardwise.control.version_check_interval_ms", "1000")
          .property("shardwise.control.router_lease_ms", Long.toString(LEASE_MS)).buildSessionFactory();
      try {
        ShardedSessions cutOff = ShardedSessions.of(cutOffFactory);
        assertEquals(ORDERS, scatterCount(cutOff));
        List<String> ids = MoveFixture.strings(control, "SELECT id FROM shardwise.router WHERE lease_ms = " + LEASE_MS);
        assertEquals(1, ids.size(), "the router registered with its lease: " + ids);
        String routerId = ids.get(0);
        assertEquals(2, MoveFixture.count(control, "SELECT count(*) FROM shardwise.router"), "both routers registered");
        try (var page = shards.operationsPage(0)) {
          String state = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
              page.uri().resolve("api/state")).build(), java.net.http.HttpResponse.BodyHandlers.ofString()).body();
          assertTrue(state.contains("\"id\":\"" + routerId + "\"") && state.contains("\"lease\":\"runs\""),
              "the operations page lists the routers: " + state);
        }

        // --- start: the proxy partitions the router just before the mover records the target's copy ---
        List<String> messages = new CopyOnWriteArrayList<>();
        List<Long> subscriptionsWhileWaiting = new CopyOnWriteArrayList<>();
        ReshardWorkflow w = moves.start(ReshardRequest.move("s0", "s1", MoveFixture.bucketsUpTo(170), List.of()), p -> {
          if (p.message() == null) {
            return;
          }
          messages.add(p.message());
          if (p.step().equals("replica-identity")) {
            proxy.partition();
          }
          if (p.step().equals("routers")) {
            try {
              subscriptionsWhileWaiting.add(MoveFixture.count(s1, "SELECT count(*) FROM pg_subscription"));
            } catch (java.sql.SQLException e) {
              throw new IllegalStateException(e);
            }
          }
        });
        assertEquals(ReshardPhase.VERIFIED, w.phase(), String.valueOf(w.lastError()));
        assertTrue(messages.stream().anyMatch(m -> m.startsWith("waiting before the copy starts for 1 router(s)")
            && m.contains(routerId)), "the mover named the cut-off router: " + messages);
        assertFalse(subscriptionsWhileWaiting.isEmpty(), messages.toString());
        assertEquals(List.of(0L), List.copyOf(new TreeSet<>(subscriptionsWhileWaiting)),
            "nothing was copied while the mover waited");
        assertTrue(MoveFixture.count(s0, "SELECT count(*) FROM purchase_order")
            + MoveFixture.count(s1, "SELECT count(*) FROM purchase_order") > ORDERS, "the moving rows sit on both");

        // the healthy router counts each row once; the cut-off one, whose map knows of no copy, refuses
        assertEquals(ORDERS, scatterCount(shards));
        ShardMapStaleException stale = assertThrows(ShardMapStaleException.class, () -> scatterCount(cutOff));
        assertTrue(stale.getMessage().contains("shardwise.control.router_lease_ms = " + LEASE_MS), stale.getMessage());
        assertTrue(stale.getMessage().contains(routerId), stale.getMessage());
        assertTrue(stale.isRetryable());
        assertTrue(stale.unconfirmedMs() >= LEASE_MS, stale.getMessage());
        assertThrows(ShardMapStaleException.class, () -> cutOff.forKey(key).readOnly()
            .fromTransaction(s -> s.find(PurchaseOrder.class, key * 1000)));
        assertThrows(ShardMapStaleException.class, () -> cutOff.forKey(key)
            .inTransaction(s -> s.persist(new PurchaseOrder(key * 1000 + 1, key, "refused"))));

        // --- back: the first heartbeat loads the newest map, and answers are right again ---
        proxy.heal();
        Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreException(ShardMapStaleException.class)
            .until(() -> scatterCount(cutOff) == ORDERS);
        assertEquals(shards.shardMap().version(), cutOff.shardMap().version());
        assertEquals(pg.shard(0).primary().port(), MoveFixture.serverPort(cutOff, key, true));

        // --- complete waits for the router's acknowledgement of the write switch before the fences go ---
        proxy.partition();
        SwitchResult switched = moves.switchWrites(w.id());
        assertTrue(switched.switched(), switched.describe());
        long flip = shards.resharding().status(w.id()).workflow().flipVersion();
        List<String> completeMessages = new CopyOnWriteArrayList<>();
        List<Long> sourceRowsWhileWaiting = new CopyOnWriteArrayList<>();
        long movingOnSource = MoveFixture.count(s0, "SELECT count(*) FROM purchase_order WHERE merchant_id = ?", key);
        ReshardWorkflow done = CompletableFuture.supplyAsync(() -> moves.complete(w.id(), p -> {
          if (p.message() != null && p.step().equals("routers")) {
            completeMessages.add(p.message());
            try {
              sourceRowsWhileWaiting.add(MoveFixture.count(s0,
                  "SELECT count(*) FROM purchase_order WHERE merchant_id = ?", key));
            } catch (java.sql.SQLException e) {
              throw new IllegalStateException(e);
            }
          }
        })).get(120, TimeUnit.SECONDS);
        assertEquals(ReshardPhase.COMPLETED, done.phase());
        assertTrue(completeMessages.stream().anyMatch(m -> m.contains("before the source's fences are dropped")
            && m.contains("shard map version " + flip) && m.contains(routerId)), completeMessages.toString());
        assertEquals(List.of(movingOnSource), List.copyOf(new TreeSet<>(sourceRowsWhileWaiting)),
            "the source kept its rows (and fences) while complete waited");
        assertEquals(0, MoveFixture.count(s0, "SELECT count(*) FROM purchase_order WHERE merchant_id = ?", key));

        // the cut-off router, whose map still names s0, cannot write there now that the fences are gone
        assertThrows(ShardMapStaleException.class, () -> cutOff.forKey(key)
            .inTransaction(s -> s.persist(new PurchaseOrder(key * 1000 + 2, key, "after complete"))));
        assertEquals(0, MoveFixture.count(s0, "SELECT count(*) FROM purchase_order WHERE id = ?", key * 1000 + 2));

        proxy.heal();
        Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreException(ShardMapStaleException.class)
            .until(() -> cutOff.shardFor(key).equals("s1"));
        cutOff.forKey(key).inTransaction(s -> s.persist(new PurchaseOrder(key * 1000 + 2, key, "after complete")));
        assertEquals(1, MoveFixture.count(s1, "SELECT count(*) FROM purchase_order WHERE id = ?", key * 1000 + 2));
        assertEquals(0, MoveFixture.count(s0, "SELECT count(*) FROM purchase_order WHERE id = ?", key * 1000 + 2));
        assertEquals(ORDERS + 1, scatterCount(cutOff));
      } finally {
        proxy.heal();
        cutOffFactory.close();
      }
    }
    assertEquals(1, MoveFixture.count(control, "SELECT count(*) FROM shardwise.router"),
        "the closed router removed its row");
  }
}
