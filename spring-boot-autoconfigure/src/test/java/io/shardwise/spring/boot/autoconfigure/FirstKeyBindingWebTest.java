package io.shardwise.spring.boot.autoconfigure;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.spring.boot.autoconfigure.shop.Merchant;
import io.shardwise.spring.boot.autoconfigure.shop.MerchantRepository;
import io.shardwise.spring.boot.autoconfigure.shop.ShopService;
import io.shardwise.spring.boot.autoconfigure.shop.ShopTestApplication;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import jakarta.persistence.EntityManager;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.client.RestClient;

/**
 * No {@code @WithShard}, no key the web interceptor reads, no {@code @InShard}: a request's
 * service method and a test's transaction run on the shard of the first key they use — the
 * primary for a read-write transaction, a replica of that shard for a read-only one — as the
 * server that answers says.
 */
@ShardedPostgres(shards = 2, replicas = 1, scope = ShardedPostgres.Scope.RUN)
@SpringBootTest(classes = ShopTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = "shardwise.schema.action=create")
class FirstKeyBindingWebTest {
  private static final long ON_S0 = KeysByShard.first("s0");
  private static final long ON_S1 = KeysByShard.first("s1");

  @LocalServerPort int port;
  @Autowired ShardedSessions shards;
  @Autowired MerchantRepository merchants;
  @Autowired EntityManager em;

  @Test
  void aRequestWithoutAShardRunsOnTheShardOfItsFirstKey(PostgresTopology pg) {
    shards.checkReplicasNow();
    RestClient http = RestClient.create("http://localhost:" + port);
    for (long merchant : new long[] {ON_S0, ON_S1}) {
      int shard = merchant == ON_S0 ? 0 : 1;
      ShopService.Server read = http.get().uri("/unrouted/server?merchant={m}&write=false", merchant).retrieve()
          .body(ShopService.Server.class);
      assertEquals(new ShopService.Server(pg.shard(shard).replica(0).port(), true), read,
          "read-only: a replica of the key's shard");
      ShopService.Server write = http.get().uri("/unrouted/server?merchant={m}&write=true", merchant).retrieve()
          .body(ShopService.Server.class);
      assertEquals(new ShopService.Server(pg.shard(shard).primary().port(), false), write,
          "read-write: the key's primary");
    }
  }

  @Test
  void aRepositoryWriteWithoutAShardLandsOnItsKeysShard(PostgresTopology pg) throws Exception {
    long merchant = 5000;
    while (!shards.shardFor(merchant).equals("s1")) {
      merchant++;
    }
    merchants.save(new Merchant(merchant, "saved without a shard"));
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
    assertEquals("saved without a shard", merchants.findById(merchant).orElseThrow().getName());
    assertEquals(1, rowsOn(pg, 1, merchant));
    assertEquals(0, rowsOn(pg, 0, merchant));
  }

  @Test
  @Transactional
  void aTestTransactionWithoutInShardRunsOnTheShardOfItsFirstKey(PostgresTopology pg) {
    merchants.findById(ON_S0);
    assertEquals(pg.shard(0).primary().port(),
        ((Number) em.createNativeQuery("select inet_server_port()").getSingleResult()).intValue());
    assertEquals("s0", ShardedSessions.shardOf(em));
  }

  private static long rowsOn(PostgresTopology pg, int shard, long merchant) throws Exception {
    try (var c = pg.shard(shard).primary().dataSource().getConnection();
        var ps = c.prepareStatement("SELECT count(*) FROM merchant WHERE id = ?")) {
      ps.setLong(1, merchant);
      try (var rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
