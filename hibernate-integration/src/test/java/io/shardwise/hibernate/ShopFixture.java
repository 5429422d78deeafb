package io.shardwise.hibernate;

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

/** Builds the shop's session factory on a testkit topology and inspects shards by direct JDBC. */
final class ShopFixture {
  static final Class<?>[] ENTITIES = {Merchant.class, PurchaseOrder.class, OrderItem.class, Country.class};

  private ShopFixture() {}

  static String shardId(int index) {
    return "shard" + index;
  }

  static Shardwise.Builder builder(PostgresTopology pg) {
    Shardwise.Builder b = Shardwise.configure().credentials("postgres", null).entities(ENTITIES);
    for (PostgresShard shard : pg.shards()) {
      b.shard(shardId(shard.index()), shard.primary().jdbcUrl());
    }
    return b;
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
