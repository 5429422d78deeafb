package io.shardwise.hibernate.resharding;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.routing.BucketStrategy;
import io.shardwise.hibernate.routing.PgHash;
import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.OrderItem;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresTopology;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.SessionFactory;

/** Two shards of the shop with the shard map in a control database, and direct looks at the servers. */
final class MoveFixture {
  static final Class<?>[] ENTITIES = {Merchant.class, PurchaseOrder.class, OrderItem.class, Country.class};
  static final int BUCKETS = 1024;

  private MoveFixture() {}

  /**
   * Drops and creates {@code database} on every primary of the topology (and the control database
   * on shard 0). The resharding tests share one topology ({@code scope = RUN}), each class in
   * databases of its own, so first every subscription of every database on both primaries is
   * dropped (a move another class or test left would otherwise stream on into this one), then every
   * replication slot nobody streams from. A server that another class left stopped or frozen fails
   * here, by name: such a class needs a topology of its own.
   */
  static void freshDatabases(PostgresTopology pg, String database) throws SQLException {
    for (PostgresNode node : pg.nodes()) {
      if (!node.isRunning() || node.isFrozen()) {
        throw new IllegalStateException(node.name() + " of the resharding tests' shared topology is "
            + (node.isRunning() ? "frozen" : "stopped") + ": a test class that stops or freezes a server must use"
            + " @ShardedPostgres(scope = CLASS), not the shared topology");
      }
    }
    for (PostgresNode node : List.of(pg.shard(0).primary(), pg.shard(1).primary())) {
      // a subscription keeps its database from being dropped, and its slot from being freed
      for (String dbAndSub : strings(node.jdbcUrl(), "SELECT d.datname || ' ' || s.subname FROM pg_subscription s"
          + " JOIN pg_database d ON d.oid = s.subdbid")) {
        String url = node.jdbcUrl(dbAndSub.substring(0, dbAndSub.indexOf(' ')));
        String sub = dbAndSub.substring(dbAndSub.indexOf(' ') + 1);
        execute(url, "ALTER SUBSCRIPTION " + sub + " DISABLE");
        execute(url, "ALTER SUBSCRIPTION " + sub + " SET (slot_name = NONE)");
        execute(url, "DROP SUBSCRIPTION " + sub);
      }
    }
    for (PostgresNode node : List.of(pg.shard(0).primary(), pg.shard(1).primary())) {
      for (String slot : strings(node.jdbcUrl(), "SELECT slot_name FROM pg_replication_slots WHERE NOT active")) {
        execute(node.jdbcUrl(), "SELECT pg_drop_replication_slot('" + slot + "')");
      }
    }
    for (PostgresNode node : List.of(pg.shard(0).primary(), pg.shard(1).primary())) {
      try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement()) {
        for (String db : List.of(database, database + "_control")) {
          if (db.endsWith("_control") && node != pg.shard(0).primary()) {
            continue;
          }
          s.execute("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)");
          s.execute("CREATE DATABASE " + db);
        }
      }
    }
  }

  static String controlUrl(PostgresTopology pg, String database) {
    return pg.shard(0).primary().jdbcUrl(database + "_control");
  }

  static Shardwise.Builder builder(PostgresTopology pg, String database) {
    return builder(pg, database, controlUrl(pg, database));
  }

  /**
   * The pause limit of the moves these tests make: they check what a switch does, not how fast this
   * shared machine is, so a switch is not abandoned because the build machine is loaded (the default
   * of 100 ms is tested where the test is about the limit).
   */
  static final String PAUSE_LIMIT_MS = "2000";

  static Shardwise.Builder builder(PostgresTopology pg, String database, String controlUrl) {
    return Shardwise.configure().credentials("postgres", null).entities(ENTITIES)
        .shard("s0", pg.shard(0).primary().jdbcUrl(database))
        .shard("s1", pg.shard(1).primary().jdbcUrl(database))
        .controlDatabase(controlUrl, true)
        .property("shardwise.reshard.fence_grace_ms", "0")
        .property("shardwise.reshard.pause_limit_ms", PAUSE_LIMIT_MS);
  }

  static SessionFactory sessionFactory(PostgresTopology pg, String database) {
    return builder(pg, database).schema("create").buildSessionFactory();
  }

  /** Buckets 0..{@code last}: the moving set of the tests that move part of s0 (which owns 0..511) to s1. */
  static java.util.Set<Integer> bucketsUpTo(int last) {
    java.util.Set<Integer> buckets = new java.util.TreeSet<>();
    for (int b = 0; b <= last; b++) {
      buckets.add(b);
    }
    return buckets;
  }

  /** The reference country DE and merchants 1..{@code merchants}, each with one order (id merchant * 1000). */
  static void seedMerchants(ShardedSessions shards, int merchants) {
    shards.referenceTables().inTransaction(s -> s.persist(new Country("DE", "Germany")));
    for (long m = 1; m <= merchants; m++) {
      long merchant = m;
      shards.forKey(merchant).inTransaction(s -> {
        s.persist(new Merchant(merchant, "m" + merchant, s.getReference(Country.class, "DE")));
        s.persist(new PurchaseOrder(merchant * 1000, merchant, "first"));
      });
    }
  }

  static int bucketOf(long key) {
    return BucketStrategy.bucketOf(PgHash.hashLong(key), BUCKETS);
  }

  /**
   * Runs a move to its end: copy and verification, read switch, write switch (again, up to five
   * times, while the target is too far behind for it), completion.
   */
  static void moveCompletely(Resharding moves, ReshardRequest request) {
    ReshardWorkflow w = moves.start(request, p -> { });
    org.junit.jupiter.api.Assertions.assertEquals(ReshardPhase.VERIFIED, w.phase(), String.valueOf(w.lastError()));
    moves.switchReads(w.id());
    SwitchResult result = moves.switchWrites(w.id());
    for (int attempt = 0; !result.switched() && attempt < 5; attempt++) {
      result = moves.switchWrites(w.id());
    }
    org.junit.jupiter.api.Assertions.assertTrue(result.switched(), result.describe());
    org.junit.jupiter.api.Assertions.assertEquals(ReshardPhase.COMPLETED, moves.complete(w.id(), p -> { }).phase());
  }

  static long count(String url, String sql, Object... args) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "postgres", null); PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  static List<String> strings(String url, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  /** Every purchase order on one shard, id to customer, read in one query. */
  static Map<Long, String> customersById(String url) throws SQLException {
    Map<Long, String> out = new HashMap<>();
    try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT id, customer FROM purchase_order")) {
      while (rs.next()) {
        out.put(rs.getLong(1), rs.getString(2));
      }
    }
    return out;
  }

  static void execute(String url, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /** The port of the server a session of this route runs on: routing proven by server identity. */
  static int serverPort(ShardedSessions shards, long key, boolean readOnly) {
    var route = readOnly ? shards.forKey(key).readOnly() : shards.forKey(key);
    return route.fromTransaction(s -> s.doReturningWork(c -> {
      try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT inet_server_port()")) {
        rs.next();
        return rs.getInt(1);
      }
    }));
  }

  static Map<String, Object> settings(PostgresTopology pg, String database) {
    return Map.of("shardwise.control.url", controlUrl(pg, database), "shardwise.user", "postgres",
        "shardwise.reshard.fence_grace_ms", "0", "shardwise.reshard.pause_limit_ms", PAUSE_LIMIT_MS);
  }

  /** No slot, publication, subscription or fence trigger of a move is left on either shard. */
  static void assertNothingLeft(String s0, String s1) throws SQLException {
    assertEquals(List.of(), strings(s0, "SELECT slot_name FROM pg_replication_slots"));
    assertEquals(List.of(), strings(s1, "SELECT slot_name FROM pg_replication_slots"));
    assertEquals(List.of(), strings(s0, "SELECT pubname FROM pg_publication"));
    assertEquals(List.of(), strings(s1, "SELECT subname FROM pg_subscription"));
    assertEquals(List.of(), strings(s1, "SELECT pubname FROM pg_publication"));
    assertEquals(List.of(), strings(s0, "SELECT subname FROM pg_subscription"));
    assertEquals(List.of(), strings(s0, "SELECT tgname FROM pg_trigger WHERE tgname = 'shardwise_fence'"));
    assertEquals(List.of(), strings(s1, "SELECT tgname FROM pg_trigger WHERE tgname = 'shardwise_fence'"));
  }
}
