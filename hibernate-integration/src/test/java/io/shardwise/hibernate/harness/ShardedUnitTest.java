package io.shardwise.hibernate.harness;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.OrderItem;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.hibernate.Session;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/** The harness's checks fail when they should: a misplaced row, a connection kept, a connection left after close. */
@ShardedPostgres(shards = Layout.MAX_SHARDS, scope = ShardedPostgres.Scope.RUN, settings = "log_statement='all'")
class ShardedUnitTest {
  private static final List<ShardedUnit.Placement> MERCHANTS = List.of(new ShardedUnit.Placement("merchant", "id"));

  private static ShardedUnit unit(PostgresTopology pg) {
    return ShardedUnit.on(pg, new Layout(Layout.Strategy.BUCKET, 2))
        .entities(Merchant.class, PurchaseOrder.class, OrderItem.class, Country.class).placements(MERCHANTS).start();
  }

  @Test
  void aRowOnAShardItsKeyDoesNotRouteToFailsThePlacementCheck(PostgresTopology pg) throws Exception {
    try (ShardedUnit unit = unit(pg)) {
      unit.reset();
      long foreign = unit.keyNotOn("shard0");
      unit.shards().forKey(foreign).inTransaction(s -> s.persist(new Merchant(foreign, "routed", null)));
      unit.assertRowsOnTheirShards();
      try (Connection c = pg.shard(0).primary().dataSource().getConnection(); Statement s = c.createStatement()) {
        s.execute("INSERT INTO merchant (id, name) VALUES (" + foreign + ", 'misplaced')");
      }
      AssertionFailedError e = assertThrows(AssertionFailedError.class, unit::assertRowsOnTheirShards);
      assertTrue(e.getMessage().contains("merchant.id = " + foreign + " sits on shard0"), e.getMessage());

      // a row on a primary the layout does not use is misplaced too
      unit.reset();
      try (Connection c = pg.shard(4).primary().dataSource().getConnection(); Statement s = c.createStatement()) {
        s.execute("CREATE TABLE IF NOT EXISTS merchant (id bigint primary key, name text)");
        s.execute("INSERT INTO merchant (id, name) VALUES (7, 'stray')");
      }
      e = assertThrows(AssertionFailedError.class, unit::assertRowsOnTheirShards);
      assertTrue(e.getMessage().contains("merchant.id = 7 sits on shard4"), e.getMessage());
      unit.reset();
    }
  }

  @Test
  void aSessionLeftOpenInATransactionFailsTheLeakChecks(PostgresTopology pg) {
    try (ShardedUnit unit = unit(pg)) {
      long key = unit.keyOn("shard1");
      Session leaked = unit.sessionFactory().withOptions().tenantIdentifier("shard1").openSession();
      try {
        leaked.beginTransaction();
        leaked.find(Merchant.class, key);
        AssertionError inUse = assertThrows(AssertionError.class,
            () -> unit.assertNoConnectionLeaked(Duration.ofSeconds(1)));
        assertTrue(inUse.getMessage().contains("shard1=pool active=1"), inUse.getMessage());
        assertTrue(inUse.getMessage().contains("idle in transaction"), inUse.getMessage());
      } finally {
        leaked.getTransaction().rollback();
        leaked.close();
      }
      unit.assertNoConnectionLeaked();
    }
  }

  @Test
  void aConnectionThatOutlivesTheSessionFactoryFailsClose(PostgresTopology pg) throws Exception {
    ShardedUnit unit = unit(pg);
    try (Connection stray = pg.shard(1).primary().dataSource().getConnection()) {
      AssertionError e = assertThrows(AssertionError.class, () -> unit.close(Duration.ofSeconds(1)));
      assertTrue(e.getMessage().contains("client connections left after the session factory of bucket x 2 shards closed"),
          e.getMessage());
    }
  }
}
