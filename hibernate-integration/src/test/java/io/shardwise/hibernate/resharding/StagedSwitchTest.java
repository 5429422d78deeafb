package io.shardwise.hibernate.resharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.internal.ShardPools;
import io.shardwise.hibernate.wiring.internal.ShardwiseComponents;
import io.shardwise.hibernate.resharding.internal.CrashPoints;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.hibernate.SessionFactory;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.engine.jdbc.connections.spi.MultiTenantConnectionProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The write switch to a shard just added: before the flip, every router has the next map staged
 * (announced by the mover, computed by the router, not yet routed by) and its pool holds open
 * connections to the new shard for the writers that will come over; the flip then installs exactly
 * that map. Proven on the new shard's server (its {@code pg_stat_activity}), inside the freeze,
 * where nothing has been routed to it yet.
 */
@ShardedPostgres(shards = 2, scope = ShardedPostgres.Scope.RUN)
class StagedSwitchTest {
  static final String DB = "staged_app";
  static final int SOURCE_CONNECTIONS = 3;

  @AfterEach
  void restoreHook() {
    CrashPoints.install(point -> { });
  }

  @Test
  void routersHoldTheStagedMapAndWarmConnectionsToTheTargetBeforeTheFlip(PostgresTopology pg) throws Exception {
    MoveFixture.freshDatabases(pg, DB);
    String s0 = pg.shard(0).primary().jdbcUrl(DB);
    String s1 = pg.shard(1).primary().jdbcUrl(DB);
    SessionFactory sf = Shardwise.configure().credentials("postgres", null).entities(MoveFixture.ENTITIES)
        .shard("s0", s0).controlDatabase(MoveFixture.controlUrl(pg, DB), true).schema("create")
        .property("shardwise.reshard.fence_grace_ms", "0")
        // the hook below looks at the target inside the freeze: room for it on a loaded machine
        .property("shardwise.reshard.pause_limit_ms", "20000").buildSessionFactory();
    try {
      ShardedSessions shards = ShardedSessions.of(sf);
      MoveFixture.seedMerchants(shards, 40);
      ShardwiseComponents components = components(sf);
      ShardPools pools = components.pools();
      List<Connection> held = new java.util.ArrayList<>();
      for (int i = 0; i < SOURCE_CONNECTIONS; i++) {
        held.add(pools.primary("s0"));   // the source's pool holds 3 connections: the writers to bring over
      }
      for (Connection c : held) {
        c.close();
      }

      Map<Long, ShardMap> stagedSeen = new ConcurrentHashMap<>();
      components.shardMapSource().addStagedListener(map -> stagedSeen.put(map.version(), map));

      Resharding moves = shards.resharding();
      ReshardRequest request = new ReshardRequest("s0", "s1", new java.util.TreeSet<>(MoveFixture.bucketsUpTo(340)), List.of(),
          ShardDescriptor.of("s1", s1));
      ReshardWorkflow w = moves.start(request, p -> { });
      assertEquals(ReshardPhase.VERIFIED, w.phase(), String.valueOf(w.lastError()));
      long before = components.router().map().version();
      // nothing routes to the new shard before the write switch; the runtime's own checks (prepared
      // transactions) may have borrowed one connection of its pool
      int beforeTheSwitch = appConnections(s1);
      assertTrue(beforeTheSwitch < SOURCE_CONNECTIONS, "connections on s1 before the switch: " + beforeTheSwitch);

      long[] insideTheFreeze = {-2, -2, -2, -2};   // routed version, staged version, app connections on s1, of them planned
      CrashPoints.install(point -> {
        if (point != CrashPoints.Point.AFTER_FREEZE) {
          return;
        }
        insideTheFreeze[0] = components.router().map().version();
        insideTheFreeze[1] = components.router().stagedVersion();
        // the warm-up runs on a thread of its own and has had the reverse set-up and 250 ms; on a
        // loaded machine it may still be opening them: this waits for the count, it does not time it
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
            .until(() -> appConnections(s1) >= SOURCE_CONNECTIONS);
        insideTheFreeze[2] = appConnections(s1);
        // the warm-up then planned the application's tables on them and rehearsed a fence's refusal once
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(components::refusalRehearsed);
        insideTheFreeze[3] = appConnections(s1, " AND query LIKE 'EXPLAIN UPDATE %'");
      });
      SwitchResult result = moves.switchWrites(w.id());
      assertTrue(result.switched(), result.describe());

      assertEquals(before, insideTheFreeze[0], "inside the freeze the router still routes with the old map");
      assertEquals(before + 1, insideTheFreeze[1], "inside the freeze the router has the next map staged");
      assertTrue(insideTheFreeze[2] >= SOURCE_CONNECTIONS, "connections open on s1 before the flip: "
          + insideTheFreeze[2] + " (" + beforeTheSwitch + " before the switch)");
      assertTrue(insideTheFreeze[3] >= 1, "connections on s1 whose last statement planned an update of the"
          + " application's tables, before the flip: " + insideTheFreeze[3]);
      ShardMap installed = components.router().map();
      assertEquals(before + 1, installed.version());
      assertSame(stagedSeen.get(before + 1), installed, "the flip installed the staged map itself, not a reload");
      assertEquals("s1", installed.ownerOf(0));
      assertEquals(-1, components.router().stagedVersion());

      long moved = 1;
      while (MoveFixture.bucketOf(moved) > 340) {
        moved++;
      }
      long merchant = moved;
      shards.forKey(merchant).inTransaction(s -> s.find(PurchaseOrder.class, merchant * 1000).setCustomer("after"));
      assertEquals(List.of("after"), MoveFixture.strings(s1, "SELECT customer FROM purchase_order WHERE id = "
          + merchant * 1000));
      assertEquals(ReshardPhase.COMPLETED, moves.complete(w.id(), p -> { }).phase());
    } finally {
      sf.close();
    }
  }

  /** Connections of the application's pools on {@code url}'s database (the driver's default name), not this query's. */
  static int appConnections(String url) {
    return appConnections(url, "");
  }

  /** {@link #appConnections(String)} with a further condition on {@code pg_stat_activity}. */
  static int appConnections(String url, String and) {
    try {
      return (int) MoveFixture.count(url, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
          + " AND application_name = 'PostgreSQL JDBC Driver' AND backend_type = 'client backend'"
          + " AND pid <> pg_backend_pid()" + and);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  static ShardwiseComponents components(SessionFactory sf) {
    MultiTenantConnectionProvider<?> provider = sf.unwrap(SessionFactoryImplementor.class).getServiceRegistry()
        .getService(MultiTenantConnectionProvider.class);
    return ((io.shardwise.hibernate.spi.ShardwiseConnectionProvider) provider).unwrap(ShardwiseComponents.class);
  }
}
