package io.shardwise.sample.clinic;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * What sharding the clinic must not change, shown on 2 shards with a streaming replica each: where
 * the seed rows went (read from each primary directly), post/redirect/get with every replica held
 * ten minutes behind, and the search walked page by page across shards. Not one of the clinic's own
 * tests: these prove the sharded copy (ClinicServiceTest and ClinicWebTest are the original's).
 */
@ShardedPostgres(shards = 2, replicas = 1, scope = ShardedPostgres.Scope.RUN)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    // a replica ten minutes behind stays in rotation, so that a read the token did not send to the primary is stale
    properties = "shardwise.replica.max-lag-ms=600000")
class ShardedClinicTest {
  private static final int FLOWS = 20;

  @LocalServerPort int port;
  @Autowired ShardedSessions shards;

  @Test
  void everySeedRowIsOnTheShardOfItsOwnerAndTheListsOnEveryShard(PostgresTopology pg) throws SQLException {
    Set<Integer> seededOwners = new TreeSet<>();
    for (PostgresShard shard : pg.shards()) {
      String id = "s" + shard.index();
      try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement()) {
        assertThat(single(s, "select inet_server_port()")).isEqualTo(shard.primary().port());
        List<Integer> owners = column(s, "select id from owners where id < 100");
        assertThat(owners).as("seed owners on %s", id).isNotEmpty()
            .allSatisfy(owner -> assertThat(shards.shardFor(owner)).isEqualTo(id));
        seededOwners.addAll(owners);
        assertThat(column(s, "select owner_id from pets where id < 100")).isNotEmpty().isSubsetOf(owners);
        assertThat(column(s, "select owner_id from visits where id < 100")).isNotEmpty().isSubsetOf(owners);
        assertThat(single(s, "select count(*) from pet_kinds")).isEqualTo(5);
        assertThat(single(s, "select count(*) from vets")).isEqualTo(3);
        assertThat(single(s, "select count(*) from vet_specialties")).isEqualTo(3);
      }
    }
    assertThat(seededOwners).containsExactlyElementsOf(IntStream.rangeClosed(1, 10).boxed().toList());
    int seededPets = 0;
    for (PostgresShard shard : pg.shards()) {
      try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement()) {
        seededPets += single(s, "select count(*) from pets where id < 100");
      }
    }
    assertThat(seededPets).as("each seed pet on one shard only").isEqualTo(11);
  }

  @Test
  void postRedirectGetShowsEveryWriteWhileTheReplicasLag(PostgresTopology pg) throws Exception {
    lagging(pg, () -> {
      Browser browser = new Browser(port);
      int stale = 0;
      for (int flow = 0; flow < FLOWS; flow++) {
        HttpResponse<String> posted = browser.post("/owners/new", "firstName", "Flow" + flow, "lastName", "Prg");
        HttpResponse<String> shown = browser.follow(posted);
        String ownerPath = posted.headers().firstValue("Location").orElseThrow().replaceAll(".*(/owners/\\d+)", "$1");
        HttpResponse<String> withPet = browser.follow(browser.post(ownerPath + "/pets/new",
            "name", "Pet" + flow, "birthDate", "2024-01-01", "kind", "3"));
        if (shown.statusCode() != 200 || !shown.body().contains("Flow" + flow + " Prg")
            || !withPet.body().contains("Pet" + flow)) {
          stale++;
        }
      }
      assertThat(stale).as("stale reads in %d flows with the consistency cookie", FLOWS).isZero();

      Browser forgetful = new Browser(port, false);
      int missed = 0;
      for (int flow = 0; flow < FLOWS; flow++) {
        if (forgetful.follow(forgetful.post("/owners/new", "firstName", "Lost" + flow, "lastName", "Prg"))
            .statusCode() == 404) {
          missed++;
        }
      }
      assertThat(missed).as("without the cookie the lagging replica answers the redirect's read").isPositive();
    });
  }

  @Test
  void theSearchWalksItsPagesAcrossShardsInOneOrder() throws Exception {
    Browser browser = new Browser(port);
    Set<String> shardsUsed = new HashSet<>();
    List<String> expected = new ArrayList<>();
    for (int i = 1; i <= 12; i++) {
      String first = String.format("n%02d", i);
      String location = browser.post("/owners/new", "firstName", first, "lastName", "Quist").headers()
          .firstValue("Location").orElseThrow();
      shardsUsed.add(shards.shardFor(Integer.parseInt(location.replaceAll(".*/owners/", ""))));
      expected.add(first + " Quist");
    }
    assertThat(shardsUsed).as("new owners placed on both shards").containsExactlyInAnyOrder("s0", "s1");
    for (int walk = 0; walk < 2; walk++) {
      List<String> walked = new ArrayList<>();
      for (int page = 0; page < 3; page++) {
        String body = browser.get("/owners?lastName=Quist&page=" + page).body();
        assertThat(body).contains("<span id=\"total\">12</span>");
        walked.addAll(ClinicWebTest.names(body));
      }
      assertThat(walked).as("walk %d", walk).containsExactlyElementsOf(expected);
    }
  }

  /** Runs {@code body} with every replica replaying ten minutes late, then lets them catch up. */
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

  private static int single(Statement s, String sql) throws SQLException {
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getInt(1);
    }
  }

  private static List<Integer> column(Statement s, String sql) throws SQLException {
    List<Integer> values = new ArrayList<>();
    try (ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        values.add(rs.getInt(1));
      }
    }
    return values;
  }
}
