package io.shardwise.sample.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import io.shardwise.testkit.junit.ShardedPostgres;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

/**
 * The shop over HTTP on a real port, on 2 shards with a streaming replica each
 * ({@code @ShardedPostgres} supplies the shardwise.* settings). Which server
 * served each request is what PostgreSQL says (inet_server_port(), pg_is_in_recovery()), and
 * where rows live is read back from each primary with plain JDBC.
 */
@ShardedPostgres(shards = 2, replicas = 1, scope = ShardedPostgres.Scope.RUN)
@SpringBootTest(classes = ShopApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "shardwise.replica.max-lag-ms=600000")
class ShopHttpTest {
  private static PostgresTopology pg;

  @BeforeAll
  static void topology(PostgresTopology topology) {
    pg = topology;
  }

  @LocalServerPort int port;
  @Autowired ShardedSessions shards;

  RestClient http;
  long merchantOnS0;
  long merchantOnS1;

  @BeforeEach
  void openShop() throws SQLException {
    http = RestClient.create("http://localhost:" + port);
    for (PostgresShard shard : pg.shards()) {
      execute(shard, "TRUNCATE shop_order, product, merchant");
    }
    merchantOnS0 = keyOn("s0");
    merchantOnS1 = keyOn("s1");
    for (long merchant : new long[] {merchantOnS0, merchantOnS1}) {
      Shop.Server server = http.post().uri("/merchants")
          .body(new ShopController.NewMerchant(merchant, "merchant " + merchant,
              List.of(new ShopController.NewProduct("LAMP", 2500, 5))))
          .retrieve().body(Shop.Server.class);
      assertEquals(new Shop.Server(primaryOf(merchant).port(), false), server, "opened on the merchant's primary");
    }
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
  }

  @Test
  void ordersAreWrittenOnTheMerchantsPrimaryAndListedFromItsReplica() throws SQLException {
    Map<Long, Long> orderOfMerchant = new java.util.HashMap<>();
    for (long merchant : new long[] {merchantOnS0, merchantOnS1}) {
      ResponseEntity<Shop.Placed> placed = http.post().uri("/merchants/{m}/orders", merchant)
          .body(new ShopController.NewOrder("ada", "LAMP", 2500)).retrieve().toEntity(Shop.Placed.class);
      assertEquals(new Shop.Server(primaryOf(merchant).port(), false), placed.getBody().servedBy());
      assertEquals(shards.shardFor(merchant), placed.getHeaders().getFirst("X-Shard"));
      orderOfMerchant.put(merchant, placed.getBody().order().id());
    }
    for (long merchant : new long[] {merchantOnS0, merchantOnS1}) {
      assertEquals(List.of(orderOfMerchant.get(merchant)), orderIdsOn(shardOf(merchant)),
          "each primary holds its own merchant's order and nothing else");
    }
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
    for (long merchant : new long[] {merchantOnS0, merchantOnS1}) {
      Shop.Listing listing = http.get().uri("/merchants/{m}/orders", merchant).retrieve().body(Shop.Listing.class);
      assertEquals(new Shop.Server(shardOf(merchant).replica(0).port(), true), listing.servedBy(),
          "a read-only transaction runs on the replica of the merchant's shard");
      assertEquals(1, listing.total());
    }
  }

  @Test
  void aClientReadsItsOwnOrderAtOnceWhileTheReplicaLags() {
    PostgresShard shard = shardOf(merchantOnS1);
    shard.replica(0).setApplyDelay(Duration.ofMinutes(5));
    try {
      ResponseEntity<Shop.Placed> placed = http.post().uri("/merchants/{m}/orders", merchantOnS1)
          .body(new ShopController.NewOrder("grace", "LAMP", 2500)).retrieve().toEntity(Shop.Placed.class);
      String token = placed.getHeaders().getFirst(ShopController.CONSISTENCY_TOKEN);
      assertThat(token).startsWith("v2.");
      long orderId = placed.getBody().order().id();

      Shop.Listing stale = http.get().uri("/merchants/{m}/orders", merchantOnS1).retrieve().body(Shop.Listing.class);
      assertEquals(new Shop.Server(shard.replica(0).port(), true), stale.servedBy());
      assertThat(stale.orders()).extracting(Shop.OrderView::id).doesNotContain(orderId);

      Shop.Listing own = http.get().uri("/merchants/{m}/orders", merchantOnS1)
          .header(ShopController.CONSISTENCY_TOKEN, token).retrieve().body(Shop.Listing.class);
      assertThat(own.orders()).extracting(Shop.OrderView::id).contains(orderId);
      assertEquals(new Shop.Server(shard.primary().port(), false), own.servedBy(),
          "the replica has not replayed the write, so the token's read went to the primary");
    } finally {
      shard.replica(0).clearApplyDelay();
    }
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
    Shop.Listing caughtUp = http.get().uri("/merchants/{m}/orders", merchantOnS1).retrieve().body(Shop.Listing.class);
    assertEquals(new Shop.Server(shard.replica(0).port(), true), caughtUp.servedBy());
    assertEquals(1, caughtUp.total());
  }

  @Test
  void aFlashSaleSellsEachItemOnceUnderConcurrentCheckouts() throws Exception {
    int buyers = 12;
    ExecutorService pool = Executors.newFixedThreadPool(6);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<Shop.Checkout>> results = new ArrayList<>();
    try {
      for (int i = 0; i < buyers; i++) {
        String customer = "buyer" + i;
        Callable<Shop.Checkout> checkout = () -> {
          start.await();
          return http.post().uri("/merchants/{m}/products/LAMP/checkout?customer={c}", merchantOnS0, customer)
              .retrieve().body(Shop.Checkout.class);
        };
        results.add(pool.submit(checkout));
      }
      start.countDown();
      int sold = 0;
      for (Future<Shop.Checkout> result : results) {
        Shop.Checkout checkout = result.get();
        assertEquals(new Shop.Server(primaryOf(merchantOnS0).port(), false), checkout.servedBy(),
            "a checkout locks the product row on the primary");
        sold += checkout.sold() ? 1 : 0;
      }
      assertEquals(5, sold, "5 lamps in stock, 12 buyers");
    } finally {
      pool.shutdownNow();
    }
    assertEquals(5L, http.get().uri("/merchants/{m}/products/LAMP/sold", merchantOnS0).retrieve().body(Long.class));
  }

  @Test
  void referenceDataLoadedOnEveryShardAtStartupIsReadWithoutAShard() throws SQLException {
    for (PostgresShard shard : pg.shards()) {
      try (Connection c = shard.primary().dataSource().getConnection();
          PreparedStatement ps = c.prepareStatement("SELECT string_agg(code, ',' ORDER BY code) FROM country");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        assertEquals("DE,FR,NL", rs.getString(1), "shardwise.sql.init ran on shard " + shard.index());
      }
    }
    List<Map<String, Object>> countries = http.get().uri("/countries").retrieve()
        .body(new org.springframework.core.ParameterizedTypeReference<>() {});
    assertThat(countries).extracting(c -> c.get("code")).containsExactly("DE", "FR", "NL");
  }

  @Test
  void aForgedConsistencyTokenIsABadRequest() {
    ResponseEntity<ProblemDetail> response = http.get().uri("/merchants/{m}/orders", merchantOnS0)
        .header(ShopController.CONSISTENCY_TOKEN, "v2.Zm9yZ2Vk.c2lnbmF0dXJl").retrieve()
        .onStatus(HttpStatusCode::isError, (request, reply) -> { })
        .toEntity(ProblemDetail.class);
    assertEquals(400, response.getStatusCode().value());
    assertThat(response.getBody().getDetail()).contains("signature does not match");
  }

  @Test
  void aMerchantIdThatIsNotANumberIsABadRequestBeforeAnySql() {
    ResponseEntity<ProblemDetail> response = http.get().uri("/merchants/abc/orders").retrieve()
        .onStatus(HttpStatusCode::isError, (request, reply) -> { })
        .toEntity(ProblemDetail.class);
    assertEquals(400, response.getStatusCode().value());
    assertThat(response.getBody().getDetail()).contains("path variable {merchantId}").contains("'abc'");
  }

  private long keyOn(String shardId) {
    for (long key = 1; ; key++) {
      if (shards.shardFor(key).equals(shardId)) {
        return key;
      }
    }
  }

  private PostgresShard shardOf(long merchant) {
    return pg.shard(Integer.parseInt(shards.shardFor(merchant).substring(1)));
  }

  private io.shardwise.testkit.PostgresNode primaryOf(long merchant) {
    return shardOf(merchant).primary();
  }

  private static List<Long> orderIdsOn(PostgresShard shard) throws SQLException {
    try (Connection c = shard.primary().dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT id FROM shop_order ORDER BY id");
        ResultSet rs = ps.executeQuery()) {
      List<Long> ids = new ArrayList<>();
      while (rs.next()) {
        ids.add(rs.getLong(1));
      }
      return ids;
    }
  }

  private static void execute(PostgresShard shard, String sql) throws SQLException {
    try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
