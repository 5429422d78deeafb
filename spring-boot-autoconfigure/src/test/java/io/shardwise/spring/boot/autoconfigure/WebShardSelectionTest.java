package io.shardwise.spring.boot.autoconfigure;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.spring.ShardKeyResolver;
import io.shardwise.spring.boot.autoconfigure.shop.ShopService;
import io.shardwise.spring.boot.autoconfigure.shop.ShopTestApplication;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

/**
 * The web interceptor chooses a request's shard from a header, a path variable or a
 * {@link ShardKeyResolver} bean; the server that answered says whether it worked.
 */
class WebShardSelectionTest {
  private static final long ON_S0 = KeysByShard.first("s0");
  private static final long ON_S1 = KeysByShard.first("s1");

  @Nested
  @ShardedPostgres(shards = 2, replicas = 1, scope = ShardedPostgres.Scope.RUN)
  @SpringBootTest(classes = ShopTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
      properties = {"shardwise.schema.action=create", "shardwise.web.key-header=X-Merchant-Id",
          "shardwise.web.key-path-variable=merchantId", "shardwise.web.shard-header=X-Shard"})
  class HeaderAndPathVariable {
    @LocalServerPort int port;
    @Autowired ShardedSessions shards;

    @Test
    void theHeaderChoosesTheShardOfAReadOnlyRequest(PostgresTopology pg) {
      shards.checkReplicasNow();
      RestClient http = RestClient.create("http://localhost:" + port);
      for (long merchant : new long[] {ON_S0, ON_S1}) {
        int shard = merchant == ON_S0 ? 0 : 1;
        ResponseEntity<ShopService.Server> served = http.get().uri("/server").header("X-Merchant-Id", "" + merchant)
            .retrieve().toEntity(ShopService.Server.class);
        assertEquals(new ShopService.Server(pg.shard(shard).replica(0).port(), true), served.getBody());
        assertEquals("s" + shard, served.getHeaders().getFirst("X-Shard"));
      }
    }

    @Test
    void thePathVariableChoosesTheShardOfAReadWriteRequest(PostgresTopology pg) {
      RestClient http = RestClient.create("http://localhost:" + port);
      ShopService.Server served = http.get().uri("/merchants/{m}/server", ON_S1).retrieve()
          .body(ShopService.Server.class);
      assertEquals(new ShopService.Server(pg.shard(1).primary().port(), false), served);
    }
  }

  @Nested
  @ShardedPostgres(shards = 2, replicas = 1, scope = ShardedPostgres.Scope.RUN)
  @SpringBootTest(classes = {ShopTestApplication.class, ResolverBean.Config.class},
      webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "shardwise.schema.action=create")
  class ResolverBean {
    @LocalServerPort int port;

    @TestConfiguration
    static class Config {
      @Bean
      ShardKeyResolver merchantFromQuery() {
        return request -> request.getParameter("merchant") == null ? null : Long.valueOf(request.getParameter("merchant"));
      }
    }

    @Autowired ShardedSessions shards;

    @Test
    void aResolverBeanChoosesTheShard(PostgresTopology pg) {
      shards.checkReplicasNow();
      RestClient http = RestClient.create("http://localhost:" + port);
      ShopService.Server served = http.get().uri("/server?merchant={m}", ON_S0).retrieve()
          .body(ShopService.Server.class);
      assertEquals(new ShopService.Server(pg.shard(0).replica(0).port(), true), served);
    }
  }
}
