package io.shardwise.sample;

import io.shardwise.testkit.Lsn;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * A guided walk through Shardwise on the embedded topology: two shards, each a PostgreSQL primary
 * with one streaming replica, started from the binaries on the classpath. Run it with
 * {@code mvn -B -q -pl sample-app -am compile exec:java}.
 */
public final class SampleApp {
  private static final Duration CATCH_UP = Duration.ofSeconds(30);

  private SampleApp() {}

  public static void main(String[] args) throws Exception {
    Walkthrough walk = new Walkthrough(System.out);
    walk.title("Shardwise sample: an e-commerce store on a sharded PostgreSQL");

    walk.step("Start the embedded topology: 2 shards, each a primary and a streaming replica");
    try (PostgresTopology pg = PostgresTopology.builder().shards(2).replicasPerShard(1).start()) {
      walk.say("up in %d ms", pg.startupTime().toMillis());
      for (PostgresShard shard : pg.shards()) {
        walk.say("shard%d  primary %s   replica %s", shard.index(), shard.primary().jdbcUrl(),
            shard.replica(0).jdbcUrl());
      }

      walk.step("Create the schema on every shard");
      for (PostgresShard shard : pg.shards()) {
        execute(shard.primary().dataSource(),
            "CREATE TABLE merchant (id bigint PRIMARY KEY, name text NOT NULL, country text NOT NULL)");
      }
      walk.say("table merchant created on %d primaries; replicas receive it by streaming replication", pg.shardCount());

      walk.step("Write on a primary, read it back from its replica");
      PostgresNode primary = pg.shard(0).primary();
      PostgresNode replica = pg.shard(0).replica(0);
      execute(primary.dataSource(), "INSERT INTO merchant VALUES (1, 'Ada''s Analytical Engines', 'GB')");
      Lsn written = primary.currentLsn();
      replica.awaitReplay(written, CATCH_UP);
      walk.say("primary WAL at %s; replica replayed up to %s and reads: %s", written, replica.replayLsn(),
          merchantName(replica.dataSource(), 1));

      walk.step("Real replication lag: the stale read that read-your-writes exists to prevent");
      replica.setApplyDelay(Duration.ofMillis(800));
      execute(primary.dataSource(), "UPDATE merchant SET name = 'Ada''s Difference Engines' WHERE id = 1");
      Lsn update = primary.currentLsn();
      walk.say("primary now says:             %s", merchantName(primary.dataSource(), 1));
      walk.say("replica (800 ms behind) says: %s   <- stale", merchantName(replica.dataSource(), 1));
      replica.awaitReplay(update, CATCH_UP);
      walk.say("replica after replaying %s:   %s", update, merchantName(replica.dataSource(), 1));
      replica.clearApplyDelay();

      walk.step("Done: stopping every server");
    }
    walk.say("all PostgreSQL processes stopped and their data directories removed");
  }

  private static void execute(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  private static String merchantName(DataSource ds, long id) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT name FROM merchant WHERE id = ?")) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : "(no row)";
      }
    }
  }
}
