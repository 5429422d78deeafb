package io.shardwise.spring.boot.autoconfigure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.spring.boot.autoconfigure.shop.ShopTestApplication;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * Read-your-writes across requests in a server-rendered application's post/redirect/get, over a
 * real HTTP server with every replica held minutes behind: the form's POST commits a write and
 * answers 302; the browser follows with a GET whose read-only transaction would read a replica that
 * has not replayed the write. The server that answered each read is PostgreSQL's own word.
 */
class ConsistencyAcrossRedirectsTest {
  private static final String COOKIE = "SW-Consistency";
  private static final int FLOWS = 50;

  @Nested
  @ShardedPostgres(shards = 2, replicas = 1, scope = ShardedPostgres.Scope.RUN)
  @SpringBootTest(classes = ShopTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
      properties = {"shardwise.schema.action=create", "shardwise.replica.max-lag-ms=600000",
          "shardwise.web.consistency-cookie=" + COOKIE,
          "shardwise.ryw.secret=consistency-across-redirects-test-secret-0123456789"})
  class WithTheConsistencyCookie {
    @LocalServerPort int port;
    @Autowired ShardedSessions shards;

    @Test
    void everyRedirectedReadSeesTheFormsWriteOnThePrimary(PostgresTopology pg) throws Exception {
      Browser browser = new Browser(port);
      lagging(pg, () -> {
        long merchant = 200_000;
        for (int flow = 0; flow < FLOWS; flow++, merchant++) {
          HttpResponse<String> posted = browser.post("/merchant-forms", "id=" + merchant + "&name=m" + merchant);
          assertEquals(302, posted.statusCode());
          assertNotNull(browser.token, "the redirect carries the consistency cookie");
          HttpResponse<String> shown = browser.get(posted.headers().firstValue("Location").orElseThrow());
          assertEquals(200, shown.statusCode(), "flow " + flow + ": the read saw the write: " + shown.body());
          assertEquals("m" + merchant + " " + shardOf(pg, shards, merchant).primary().port() + " false", shown.body(),
              "read on the primary of the merchant's shard, its replica not having replayed the write");
        }
      });
    }

    @Test
    void withoutAShardChosenTheRedirectedReadStillSeesTheWriteOnThePrimary(PostgresTopology pg) throws Exception {
      Browser browser = new Browser(port);
      lagging(pg, () -> {
        long merchant = 500_000;
        for (int flow = 0; flow < 20; flow++, merchant++) {
          HttpResponse<String> posted = browser.post("/unrouted-merchant-forms", "id=" + merchant + "&name=m" + merchant);
          assertEquals(302, posted.statusCode());
          assertNotNull(browser.token, "the write bound to its key's shard and pinned the scope there");
          HttpResponse<String> shown = browser.get(posted.headers().firstValue("Location").orElseThrow());
          assertEquals("m" + merchant + " " + shardOf(pg, shards, merchant).primary().port() + " false", shown.body(),
              "flow " + flow + ": read on the primary of the merchant's shard, its replica not having replayed the write");
        }
      });
    }

    @Test
    void anErrorPageAfterACommittedWriteCarriesTheCookieToo(PostgresTopology pg) throws Exception {
      Browser browser = new Browser(port);
      long merchant = 300_000;
      assertEquals(302, browser.post("/merchant-forms", "id=" + merchant + "&name=first").statusCode());
      pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
      browser.token = null;
      lagging(pg, () -> {
        HttpResponse<String> refused = browser.post("/merchant-forms/" + merchant + "/rename-then-fail", "name=second");
        assertEquals(409, refused.statusCode());
        assertNotNull(browser.token, "the error response carries the token of the write committed before the error");
        assertEquals("second " + shardOf(pg, shards, merchant).primary().port() + " false",
            browser.get("/merchant-forms/" + merchant).body());
      });
    }
  }

  @Nested
  @ShardedPostgres(shards = 2, replicas = 1, scope = ShardedPostgres.Scope.RUN)
  @SpringBootTest(classes = ShopTestApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
      properties = {"shardwise.schema.action=create", "shardwise.replica.max-lag-ms=600000"})
  class WithoutIt {
    @LocalServerPort int port;
    @Autowired ShardedSessions shards;

    @Test
    void theRedirectedReadMissesTheWriteOnTheLaggingReplica(PostgresTopology pg) throws Exception {
      Browser browser = new Browser(port);
      int[] stale = {0};
      lagging(pg, () -> {
        long merchant = 400_000;
        for (int flow = 0; flow < FLOWS; flow++, merchant++) {
          HttpResponse<String> posted = browser.post("/merchant-forms", "id=" + merchant + "&name=m" + merchant);
          assertEquals(302, posted.statusCode());
          assertNull(browser.token);
          HttpResponse<String> shown = browser.get(posted.headers().firstValue("Location").orElseThrow());
          if (shown.statusCode() == 404) {
            assertEquals("null " + shardOf(pg, shards, merchant).replica(0).port() + " true", shown.body());
            stale[0]++;
          }
        }
      });
      assertTrue(stale[0] > 0, "without the cookie the replica answers before it replayed the write");
    }
  }

  /** Runs {@code body} with every replica replaying 10 minutes late, then lets them catch up. */
  private static void lagging(PostgresTopology pg, ThrowingRunnable body) throws Exception {
    for (PostgresShard shard : pg.shards()) {
      shard.replica(0).setApplyDelay(Duration.ofMinutes(10));
    }
    try {
      body.run();
    } finally {
      for (PostgresShard shard : pg.shards()) {
        shard.replica(0).clearApplyDelay();
      }
      pg.awaitReplicasCaughtUp(Duration.ofSeconds(60));
    }
  }

  interface ThrowingRunnable {
    void run() throws Exception;
  }

  private static PostgresShard shardOf(PostgresTopology pg, ShardedSessions shards, long merchant) {
    return pg.shard(Integer.parseInt(shards.shardFor(merchant).substring(1)));
  }

  /** A browser without redirects followed for it: it keeps the consistency cookie it is handed. */
  private static final class Browser {
    private final HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    private final URI base;
    String token;

    Browser(int port) {
      this.base = URI.create("http://localhost:" + port);
    }

    HttpResponse<String> post(String path, String form) throws IOException, InterruptedException {
      return send(HttpRequest.newBuilder(base.resolve(path)).header("Content-Type",
          "application/x-www-form-urlencoded").POST(HttpRequest.BodyPublishers.ofString(form)));
    }

    HttpResponse<String> get(String location) throws IOException, InterruptedException {
      return send(HttpRequest.newBuilder(base.resolve(location)).GET());
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
      if (token != null) {
        request.header("Cookie", COOKIE + "=" + token);
      }
      HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      for (String set : response.headers().allValues("Set-Cookie")) {
        if (set.startsWith(COOKIE + "=")) {
          token = set.substring(COOKIE.length() + 1, set.indexOf(';'));
        }
      }
      return response;
    }
  }
}
