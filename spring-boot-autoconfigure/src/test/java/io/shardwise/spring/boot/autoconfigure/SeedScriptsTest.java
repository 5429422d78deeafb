package io.shardwise.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.spring.boot.autoconfigure.seed.SeedOwnerRepository;
import io.shardwise.spring.boot.autoconfigure.seed.SeedTestApplication;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.NestedExceptionUtils;

/** spring.sql.init data scripts on 2 shards: rows on their key's shard, reference rows everywhere, refusals. */
@ShardedPostgres(shards = 2, replicas = 0, scope = ShardedPostgres.Scope.RUN)
@SpringBootTest(classes = SeedTestApplication.class, properties = {"shardwise.schema.action=update",
    "spring.sql.init.mode=always", "spring.sql.init.data-locations=classpath:seed/data.sql"})
class SeedScriptsTest {
  @Autowired ShardedSessions shards;
  @Autowired SeedOwnerRepository owners;

  @Test
  void everyOwnerRowLivesOnlyOnItsKeysShardAndReferenceRowsOnEveryShard(PostgresTopology pg) throws SQLException {
    Map<Long, Integer> portOfOwner = new HashMap<>();
    Set<String> shardsWithOwners = new HashSet<>();
    for (PostgresShard shard : pg.shards()) {
      try (Connection c = connect(shard); ResultSet rs = c.createStatement().executeQuery(
          "select id, name, inet_server_port() from seed_owner where id between 1 and 7")) {
        while (rs.next()) {
          long id = rs.getLong(1);
          assertThat(portOfOwner.put(id, rs.getInt(3))).as("owner %d on one shard only", id).isNull();
          assertThat(shards.shardFor(id)).isEqualTo("s" + shard.index());
          shardsWithOwners.add("s" + shard.index());
          if (id == 2) {
            assertThat(rs.getString(2)).isEqualTo("Bob; -- not a comment");
          }
        }
      }
      assertThat(count(shard, "select count(*) from seed_kind where id in (1, 2)")).isEqualTo(2);
      assertThat(count(shard, "select count(*) from seed_vet_kinds")).isEqualTo(1);
      assertThat(count(shard, "select count(*) from seed_pet where id = 10"))
          .isEqualTo(shards.shardFor(4L).equals("s" + shard.index()) ? 1 : 0);
    }
    assertThat(portOfOwner).hasSize(7);
    assertThat(shardsWithOwners).containsExactlyInAnyOrder("s0", "s1");
    for (Map.Entry<Long, Integer> owner : portOfOwner.entrySet()) {
      int index = Integer.parseInt(shards.shardFor(owner.getKey().longValue()).substring(1));
      assertThat(owner.getValue()).isEqualTo(pg.shard(index).primary().port());
    }
    try (var scope = shards.contextForKey(7L)) {
      assertThat(owners.findById(7L)).map(o -> o.getName()).contains("Gil");
    }
  }

  @Test
  void anUnroutableStatementRefusesTheScriptBeforeAnythingRuns(PostgresTopology pg) throws SQLException {
    Map<String, Object> settings = StandaloneSettings.of(pg);
    settings.put("spring.sql.init.mode", "always");
    settings.put("spring.sql.init.data-locations", "classpath:seed/unroutable.sql");
    Exception e = assertThrows(Exception.class,
        () -> new SpringApplicationBuilder(SeedTestApplication.class).properties(settings).run().close());
    String message = NestedExceptionUtils.getMostSpecificCause(e).getMessage();
    assertThat(message).contains("nothing was run").contains("unroutable.sql:3").contains("shard key column id")
        .contains("unroutable.sql:4").contains("UPDATE").doesNotContain("unroutable.sql:1").doesNotContain("unroutable.sql:2");
    for (PostgresShard shard : pg.shards()) {
      assertThat(count(shard, "select count(*) from seed_kind where id = 3")).isZero();
      assertThat(count(shard, "select count(*) from seed_owner where id = 8")).isZero();
    }
  }

  private static Connection connect(PostgresShard shard) throws SQLException {
    return shard.primary().dataSource().getConnection();
  }

  private static long count(PostgresShard shard, String sql) throws SQLException {
    try (Connection c = connect(shard); ResultSet rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
