package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.operations.HotspotReport;
import io.shardwise.hibernate.operations.HotspotsUnavailableException;
import io.shardwise.hibernate.operations.ShardKeyWarning;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Hotspot counting on two real shards: every session routed by key is counted in the bucket the
 * router chose, checked against the server each session really reached ({@code inet_server_port()});
 * a key that takes most of its shard is named with its share; the shard key check reads
 * PostgreSQL's statistics of a low-cardinality key.
 */
@ShardedPostgres(shards = 2)
class HotspotsTest {
  private static PostgresTopology topology;
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;

  @BeforeAll
  static void start(PostgresTopology pg) {
    topology = pg;
    sessionFactory = ShopFixture.builder(pg).property(ShardwiseSettings.HOTSPOTS_SAMPLE, "4").schema("create")
        .buildSessionFactory();
    shards = ShardedSessions.of(sessionFactory);
  }

  @AfterAll
  static void stop() {
    if (sessionFactory != null) {
      sessionFactory.close();
    }
  }

  private static int serverPort(long key) {
    return shards.forKey(key).fromSession(s -> s.createNativeQuery("select inet_server_port()", Integer.class)
        .getSingleResult());
  }

  private static String shardOfPort(int port) {
    for (PostgresShard shard : topology.shards()) {
      if (shard.primary().port() == port) {
        return ShopFixture.shardId(shard.index());
      }
    }
    throw new AssertionError("no shard of the topology listens on port " + port);
  }

  @Test
  void theReportCountsWhereSessionsReallyWentAndNamesTheHotKey() {
    shards.hotspots().reset();
    long hot = 4242;
    Map<String, Long> reached = new HashMap<>();
    Random random = new Random(1);
    for (int i = 0; i < 1500; i++) {
      long key = i % 2 == 0 ? hot : 10_000 + random.nextInt(1_000_000);
      reached.merge(shardOfPort(serverPort(key)), 1L, Long::sum);
    }
    String hotShard = shardOfPort(serverPort(hot));
    reached.merge(hotShard, 1L, Long::sum);

    HotspotReport report = shards.hotspots().report();
    assertEquals(1501, report.totalSessions());
    assertTrue(reached.get(hotShard) >= 1000, "the hot shard needs 1,000 sessions to be judged: " + reached);
    for (HotspotReport.ShardTraffic shard : report.shards()) {
      assertEquals(reached.getOrDefault(shard.shardId(), 0L), shard.sessions(),
          "sessions counted for " + shard.shardId() + " against sessions that reached its server");
    }
    HotspotReport.Finding finding = report.findings().stream()
        .filter(f -> f.kind() == HotspotReport.Kind.KEY_DOMINATES_SHARD).findFirst()
        .orElseThrow(() -> new AssertionError("no key finding in " + report.findings()));
    assertEquals(hotShard, finding.shardId());
    assertEquals(Long.toString(hot), finding.subject());
    double trueShare = 751.0 / reached.get(hotShard);
    assertEquals(trueShare, finding.share(), 0.05, "reported share against the share of sessions that reached it");
    HotspotReport.ShardTraffic busiest = report.shards().stream().filter(s -> s.shardId().equals(hotShard))
        .findFirst().orElseThrow();
    assertEquals(hot, busiest.hottestKeys().get(0).key());
  }

  /** 2,000 orders for each of three merchants on every shard, then ANALYZE: a low-cardinality key. */
  private static void threeMerchantsPerShard() throws Exception {
    for (PostgresShard shard : topology.shards()) {
      String shardId = ShopFixture.shardId(shard.index());
      long[] merchants = new long[3];
      for (int m = 0, k = 1; m < merchants.length; k++) {
        if (shards.shardFor((long) k).equals(shardId)) {
          merchants[m++] = k;
        }
      }
      try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement()) {
        s.execute("DELETE FROM order_item");
        s.execute("DELETE FROM purchase_order");
        for (int m = 0; m < merchants.length; m++) {
          s.execute("INSERT INTO purchase_order (id, merchant_id, customer) SELECT " + m + " * 10000 + g, "
              + merchants[m] + ", 'c' FROM generate_series(1, 2000) g");
        }
        s.execute("ANALYZE purchase_order");
      }
    }
  }

  @Test
  void aLowCardinalityKeyIsFlaggedFromTheStatisticsOfEveryShard() throws Exception {
    threeMerchantsPerShard();
    List<ShardKeyWarning> warnings = shards.hotspots().checkShardKeys();
    List<ShardKeyWarning> orders = warnings.stream().filter(w -> w.table().equals("purchase_order")).toList();
    assertEquals(2, orders.size(), "one warning per shard: " + warnings);
    for (ShardKeyWarning w : orders) {
      assertEquals(ShardKeyWarning.Kind.LOW_CARDINALITY, w.kind());
      assertEquals("merchant_id", w.column());
      assertEquals(3, w.distinctKeys(), 0.5);
      assertTrue(w.message().contains("6,000 rows on " + w.shardId()), w.message());
    }
    assertTrue(warnings.stream().noneMatch(w -> w.table().equals("merchant")),
        "merchant has no statistics or few rows: " + warnings);
  }

  @Test
  void theStartUpCheckLogsTheWarningWhenAskedTo() throws Exception {
    threeMerchantsPerShard();
    java.util.List<String> logged = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.logging.Handler handler = new java.util.logging.Handler() {
      @Override
      public void publish(java.util.logging.LogRecord record) {
        logged.add(record.getMessage());
      }

      @Override
      public void flush() {
      }

      @Override
      public void close() {
      }
    };
    java.util.logging.Logger logger = java.util.logging.Logger.getLogger("io.shardwise");
    logger.addHandler(handler);
    try (SessionFactory checked = ShopFixture.builder(topology)
        .property(ShardwiseSettings.HOTSPOTS_KEY_CHECK, "startup").buildSessionFactory()) {
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> logged.stream()
          .filter(m -> m.startsWith("purchase_order.merchant_id has about 3 distinct values")).count() == 2);
    } finally {
      logger.removeHandler(handler);
    }
  }

  @Test
  void withCountingOffTheReportIsRefusedWithTheSettingToChange() {
    try (SessionFactory off = ShopFixture.builder(topology).property(ShardwiseSettings.HOTSPOTS_ENABLED, "false")
        .buildSessionFactory()) {
      ShardedSessions quiet = ShardedSessions.of(off);
      quiet.forKey(1L).inSession(s -> s.find(Merchant.class, 1L));
      HotspotsUnavailableException e = assertThrows(HotspotsUnavailableException.class,
          () -> quiet.hotspots().report());
      assertTrue(e.getMessage().contains("shardwise.hotspots.enabled = false"), e.getMessage());
    }
  }
}
