package io.shardwise.hibernate;

import io.shardwise.hibernate.harness.Layout;
import io.shardwise.hibernate.harness.ShardedUnit;
import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.OrderItem;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.SessionFactory;

/**
 * The shop model (merchants, their orders and order items, co-located by merchant, and the country
 * reference table) on a testkit topology: the core matrix's unit ({@link #unit}), the shared builder
 * for tests outside the matrix ({@link #builder}), and shard inspection by direct JDBC.
 */
final class ShopFixture {
  static final Class<?>[] ENTITIES = {Merchant.class, PurchaseOrder.class, OrderItem.class, Country.class};

  /** The sharded tables of the shop and their shard-key columns, for the placement check. */
  static final List<ShardedUnit.Placement> PLACEMENTS = List.of(new ShardedUnit.Placement("merchant", "id"),
      new ShardedUnit.Placement("purchase_order", "merchant_id"), new ShardedUnit.Placement("order_item", "merchant_id"));

  private ShopFixture() {}

  static String shardId(int index) {
    return Layout.shardId(index);
  }

  /** The shop on {@code layout}, schema created, with the harness's checks. */
  static ShardedUnit unit(PostgresTopology pg, Layout layout) {
    return ShardedUnit.on(pg, layout).entities(ENTITIES).placements(PLACEMENTS).start();
  }

  /** The shop's builder over every shard of the topology, bucket routing (the shared builder). */
  static Shardwise.Builder builder(PostgresTopology pg) {
    return ShardedUnit.configure(pg, false).entities(ENTITIES);
  }

  /** Empties the shop's tables wherever they exist and puts {@code GB} into every layout shard's country table. */
  static void resetWithGreatBritain(ShardedUnit unit) throws SQLException {
    unit.reset("country");
    unit.executeOnEveryShard("INSERT INTO country (code, name) VALUES ('GB', 'United Kingdom')");
  }

  static SessionFactory sessionFactory(PostgresTopology pg, String schemaAction) {
    return builder(pg).schema(schemaAction).buildSessionFactory();
  }

  static long count(PostgresShard shard, String sql, Object... args) throws SQLException {
    try (Connection c = shard.primary().dataSource().getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** The indexes of the shards that physically hold a row matching {@code sql} (a count query). */
  static List<Integer> shardsHolding(PostgresTopology pg, String sql, Object... args) throws SQLException {
    List<Integer> holding = new ArrayList<>();
    for (PostgresShard shard : pg.shards()) {
      if (count(shard, sql, args) > 0) {
        holding.add(shard.index());
      }
    }
    return holding;
  }

  static void executeOnEveryShard(PostgresTopology pg, String sql) throws SQLException {
    for (PostgresShard shard : pg.shards()) {
      try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement()) {
        s.execute(sql);
      }
    }
  }
}
