package io.shardwise.spring.boot.test;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

/** The settings @ShardedPostgres gives a Spring test context, beyond the shard list. */
@ShardedPostgres(shards = 2, scope = ShardedPostgres.Scope.RUN)
class ShardedPostgresContextCustomizerTest {

  @Test
  void aControlDatabaseOnlyForApplicationsThatUseOne() {
    assertThat(ShardedPostgresContextCustomizer.usesControlDatabase(new MockEnvironment())).isFalse();
    assertThat(ShardedPostgresContextCustomizer.usesControlDatabase(
        new MockEnvironment().withProperty("shardwise.ids.generated", "per_shard"))).isFalse();
    assertThat(ShardedPostgresContextCustomizer.usesControlDatabase(
        new MockEnvironment().withProperty("shardwise.ids.generated", " Cluster "))).isTrue();
    assertThat(ShardedPostgresContextCustomizer.usesControlDatabase(
        new MockEnvironment().withProperty("shardwise.control.url", "jdbc:postgresql://control/db"))).isTrue();
  }

  @Test
  void theControlDatabaseIsCreatedOnceOnTheFirstPrimaryAndSharedByEveryContext(PostgresTopology pg)
      throws SQLException {
    Map<String, Object> first = ShardedPostgresContextCustomizer.controlSettings(pg, null);
    Map<String, Object> second = ShardedPostgresContextCustomizer.controlSettings(pg, "validate");
    assertThat(first).containsEntry("shardwise.control.url", pg.shard(0).primary().jdbcUrl("shardwise_test_control"))
        .containsEntry("shardwise.control.initialize", "true").containsEntry("shardwise.ddl", "create");
    assertThat(second).containsEntry("shardwise.control.url", first.get("shardwise.control.url"))
        .doesNotContainKey("shardwise.ddl");
    try (Connection c = pg.shard(0).primary().dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("select count(*) from pg_database where datname = 'shardwise_test_control'")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(1);
    }
  }

  @Test
  void aDataJpaTestKeepsTheShardsAsItsDatabase(PostgresTopology pg) {
    assertThat(ShardedPostgresContextCustomizer.settings(pg)).containsEntry("spring.test.database.replace", "none")
        .containsEntry("shardwise.shards", "s0,s1");
  }
}
