package io.shardwise.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.resharding.SwitchResult;
import io.shardwise.sample.model.Country;
import io.shardwise.sample.model.Customer;
import io.shardwise.sample.model.Merchant;
import io.shardwise.sample.model.OrderItem;
import io.shardwise.sample.model.Product;
import io.shardwise.sample.model.Profile;
import io.shardwise.sample.model.PurchaseOrder;
import io.shardwise.sample.model.Wallet;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/**
 * The sample app's resharding step on its own: the same session factory as the walkthrough (in
 * fresh databases), the step's merchants, a fourth shard added while orders are written; then what
 * the step reports is checked, and where every order is is read again here, server by server.
 */
@ShardedPostgres(shards = 3)
class AddShardLiveTest {
  static final String DB = "sample_add_shard";

  @Test
  void aFourthShardTakesItsShareWhileOrdersAreWrittenAndEveryOrderEndsOnceOnItsKeysServer(PostgresTopology pg)
      throws Exception {
    for (PostgresShard shard : pg.shards()) {
      execute(shard.primary().jdbcUrl(), "DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)");
      execute(shard.primary().jdbcUrl(), "CREATE DATABASE " + DB);
    }
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    Walkthrough walk = new Walkthrough(new PrintStream(printed, true, StandardCharsets.UTF_8));
    Shardwise.Builder config = Shardwise.configure().credentials("postgres", null).schema("create").ddl("create")
        .property(io.shardwise.hibernate.ShardwiseSettings.RYW_SECRET, "add-shard-live-test-secret-of-32-bytes!!")
        .property("shardwise.snowflake.worker_id", "8")
        .property("shardwise.reshard.fence_grace_ms", "250")
        .controlDatabase(pg.shard(0).primary().jdbcUrl(DB), true)
        .entities(Merchant.class, PurchaseOrder.class, OrderItem.class, Country.class, Profile.class, Product.class,
            Wallet.class, Customer.class);
    for (PostgresShard shard : pg.shards()) {
      config.shard("shard" + shard.index(), shard.primary().jdbcUrl(DB));
    }
    AddShardLive.Result result;
    String fourthUrl;
    try (AddShardLive step = new AddShardLive(); SessionFactory sf = config.buildSessionFactory()) {
      ShardedSessions shards = ShardedSessions.of(sf);
      AddShardLive.seed(shards);
      fourthUrl = step.startServer().jdbcUrl();
      result = step.run(walk, shards, "shard3");
      AddShardLive.print(walk, result);
      String out = printed.toString(StandardCharsets.UTF_8);

      assertNull(result.writerProblem(), out);
      assertTrue(result.switches().stream().allMatch(SwitchResult::switched), out);
      assertEquals(256, result.bucketsMoved(), "a fourth equal shard takes a quarter of 1,024 buckets");
      assertEquals(256, java.util.Arrays.stream(shards.shardMap().bucketOwnersCopy()).filter("shard3"::equals).count(),
          out);
      assertTrue(result.ordersWritten() > 0 && result.writes() >= 40, out);
      assertEquals(0, result.missing(), out);
      assertEquals(0, result.duplicated(), out);
      assertEquals(0, result.stale(), out);
      assertEquals(0, result.misplaced(), out);
      assertTrue(result.ordersPerServer().getOrDefault("shard3-primary", 0) > 0,
          "some of the writer's orders are on the new shard's server: " + result.ordersPerServer());
      assertTrue(out.contains("writes paused"), out);

      // Independently of the step's own check: every seeded and written order once, on its key's server.
      long seeded = AddShardLive.MERCHANTS * (long) AddShardLive.ORDERS_PER_MERCHANT;
      long total = 0;
      List<String> urls = new ArrayList<>();
      for (PostgresShard shard : pg.shards()) {
        urls.add(shard.primary().jdbcUrl(DB));
      }
      urls.add(fourthUrl);
      for (String url : urls) {
        try (Connection c = java.sql.DriverManager.getConnection(url, "postgres", null);
            Statement st = c.createStatement();
            ResultSet rs = st.executeQuery("SELECT inet_server_port(), merchant_id FROM purchase_order")) {
          while (rs.next()) {
            long merchant = rs.getLong(2);
            int port = rs.getInt(1);
            assertEquals(port, (int) shards.forKey(merchant).fromSession(s -> s.createNativeQuery(
                "select inet_server_port()", Integer.class).getSingleResult()), "an order of merchant " + merchant);
            total++;
          }
        }
      }
      assertEquals(seeded + result.ordersWritten(), total, "seeded and written orders, each once");
    }
    assertEquals(List.of(), slots(pg), "no replication slot left behind");
  }

  private static List<String> slots(PostgresTopology pg) throws SQLException {
    List<String> out = new ArrayList<>();
    for (PostgresShard shard : pg.shards()) {
      try (Connection c = shard.primary().dataSource().getConnection(); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT slot_name FROM pg_replication_slots WHERE slot_type = 'logical'")) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    }
    return out;
  }

  private static void execute(String url, String sql) throws SQLException {
    try (Connection c = java.sql.DriverManager.getConnection(url, "postgres", null); Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
