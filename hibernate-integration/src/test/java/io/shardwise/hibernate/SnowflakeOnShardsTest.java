package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.events.Event;
import io.shardwise.hibernate.id.SnowflakeLayout;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.Test;

/** @SnowflakeId ids of a sharded entity, generated through Hibernate under Shardwise and persisted on every shard. */
@ShardedPostgres(shards = 3, scope = ShardedPostgres.Scope.RUN)
class SnowflakeOnShardsTest {

  @Test
  void idsAreUniqueAcrossShardsIncreasingPerShardAndCarryTheWorker(PostgresTopology pg) throws SQLException {
    Shardwise.Builder b = Shardwise.configure().credentials("postgres", null).schema("create")
        .property("shardwise.snowflake.worker_id", "5").entities(Event.class);
    for (PostgresShard shard : pg.shards()) {
      b.shard("shard" + shard.index(), shard.primary().jdbcUrl());
    }
    List<Long> generated = new ArrayList<>();
    try (SessionFactory sf = b.buildSessionFactory()) {
      ShardedSessions shards = ShardedSessions.of(sf);
      for (long tenant = 1; tenant <= 30; tenant++) {
        long t = tenant;
        shards.forKey(t).inTransaction(s -> {
          for (int i = 0; i < 50; i++) {
            Event e = new Event(t, "kind" + i);
            s.persist(e);
            generated.add(e.getId());
          }
        });
      }
    }

    Set<Long> everywhere = new HashSet<>();
    int rows = 0;
    for (PostgresShard shard : pg.shards()) {
      try (Connection c = shard.primary().dataSource().getConnection(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT id FROM Event ORDER BY ctid")) {
        long previous = Long.MIN_VALUE;
        while (rs.next()) {
          long id = rs.getLong(1);
          assertTrue(id > previous, "ids increase in insertion order on " + shard.index());
          previous = id;
          everywhere.add(id);
          rows++;
        }
      }
    }
    assertEquals(1500, rows);
    assertEquals(1500, everywhere.size(), "no id repeats on any shard or across shards");
    assertEquals(Set.copyOf(generated), everywhere);
    for (long id : generated) {
      assertEquals(5, SnowflakeLayout.DEFAULT.decode(id).worker());
    }
  }
}
