package io.shardwise.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.routing.BucketStrategy;
import io.shardwise.hibernate.routing.ControlDatabase;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardKeyType;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The operator's path through a move, command by command, against real PostgreSQL. */
@ShardedPostgres(shards = 2)
class ReshardCommandTest {

  record Run(int exit, String out, String err) {}

  static Run shardwise(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = ShardwiseCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int exit = cli.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  static void sql(String url, String... statements) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    }
  }

  static long count(String url, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void planStartSwitchCompleteFromTheCommandLine(PostgresTopology pg) throws Exception {
    String s0 = pg.shard(0).primary().jdbcUrl();
    String s1 = pg.shard(1).primary().jdbcUrl();
    sql(s0, "CREATE DATABASE cli_control");
    String control = pg.shard(0).primary().jdbcUrl("cli_control");
    for (String url : List.of(s0, s1)) {
      sql(url, "CREATE TABLE tenant_event (id bigint PRIMARY KEY, tenant_id bigint NOT NULL, payload text)");
    }
    String bucket = BucketStrategy.sqlBucket(ShardKeyType.LONG, "tenant_id", 1024);
    sql(s0, "INSERT INTO tenant_event SELECT g, g % 500, 'event ' || g FROM generate_series(1, 20000) g WHERE "
        + bucket.replace("tenant_id", "(g % 500)") + " < 512");
    long moving = count(s0, "SELECT count(*) FROM tenant_event WHERE " + bucket + " BETWEEN 0 AND 99");
    ControlDatabase db = new ControlDatabase(control, "postgres", null);
    db.createSchema();
    db.initialize(ShardMap.evenlyAssigned(1, List.of(ShardDescriptor.of("s0", s0), ShardDescriptor.of("s1", s1)), 1024));

    String[] connection = {"--control-url", control, "--user", "postgres"};
    String[] move = {"--from", "s0", "--to", "s1", "--buckets", "0-99", "--table", "tenant_event:tenant_id:long"};

    Run plan = shardwise(concat(new String[] {"reshard", "plan"}, connection, move));
    assertEquals(0, plan.exit(), plan.err());
    assertTrue(plan.out().contains(String.format("%,d rows", moving)), plan.out());
    assertTrue(plan.out().contains("replica identity: index shardwise_ri_tenant_event"), plan.out());
    assertEquals(0, count(s0, "SELECT count(*) FROM pg_publication"), "plan changes nothing");

    Run bad = shardwise(concat(new String[] {"reshard", "plan"}, connection, new String[] {"--from", "s0", "--to", "s1",
        "--buckets", "600-610", "--table", "tenant_event:tenant_id:long"}));
    assertEquals(2, bad.exit(), bad.out());
    assertTrue(bad.err().contains("not owned by 's0'"), bad.err());

    Run start = shardwise(concat(new String[] {"reshard", "start"}, connection, move));
    assertEquals(0, start.exit(), start.err());
    assertTrue(start.out().contains("[VERIFIED]"), start.out());
    assertTrue(start.out().contains("copy ["), "a progress bar: " + start.out());
    assertTrue(start.out().contains("replica identity of tenant_event"), start.out());
    Matcher id = Pattern.compile("move (mv[0-9a-f]+)").matcher(start.out());
    assertTrue(id.find(), start.out());
    String workflow = id.group(1);
    System.out.println(start.out());

    Run status = shardwise(concat(new String[] {"reshard", "status", workflow}, connection));
    assertTrue(status.out().contains("slot") && status.out().contains("present"), status.out());
    assertTrue(status.out().contains("catch-up lag"), status.out());

    Run reads = shardwise(concat(new String[] {"reshard", "switch-reads", workflow}, connection));
    assertEquals(0, reads.exit(), reads.err());
    // a loaded build machine must not make the switch give up: this test is about the command, not the limit
    Run writes = shardwise(concat(new String[] {"reshard", "switch-writes", workflow, "--set",
        "shardwise.reshard.pause_limit_ms=2000"}, connection));
    assertEquals(0, writes.exit(), writes.err() + writes.out());
    assertTrue(writes.out().startsWith("Writes switched"), writes.out());
    sql(s1, "UPDATE tenant_event SET payload = 'written on s1' WHERE id = (SELECT min(id) FROM tenant_event)");
    Run reverse = shardwise(concat(new String[] {"reshard", "status", workflow}, connection));
    assertTrue(reverse.out().contains("shardwise_rsub_" + workflow), "the reverse path is listed: " + reverse.out());
    Run rollback = shardwise(concat(new String[] {"reshard", "rollback", workflow}, connection));
    assertEquals(0, rollback.exit(), rollback.err() + rollback.out());
    assertTrue(rollback.out().startsWith("Writes rolled back to the source"), rollback.out());
    assertTrue(rollback.out().contains("[VERIFIED]"), rollback.out());
    assertEquals(1, count(s0, "SELECT count(*) FROM tenant_event WHERE payload = 'written on s1'"),
        "the write made on the target came back to the source");
    assertEquals(0, count(s0, "SELECT count(*) FROM pg_subscription"), "the reverse subscription is dropped");
    Run again = shardwise(concat(new String[] {"reshard", "switch-writes", workflow}, connection));
    assertEquals(0, again.exit(), again.err() + again.out());
    Run complete = shardwise(concat(new String[] {"reshard", "complete", workflow, "--set",
        "shardwise.reshard.fence_grace_ms=0"}, connection));
    assertEquals(0, complete.exit(), complete.err());
    assertTrue(complete.out().contains("[COMPLETED]"), complete.out());

    assertEquals(moving, count(s1, "SELECT count(*) FROM tenant_event"));
    assertEquals(0, count(s0, "SELECT count(*) FROM tenant_event WHERE " + bucket + " BETWEEN 0 AND 99"));
    assertEquals(0, count(s0, "SELECT count(*) FROM pg_replication_slots"));
    Run after = shardwise(concat(new String[] {"reshard", "status", workflow}, connection));
    assertTrue(!after.out().contains("present"), after.out());
    Run list = shardwise(concat(new String[] {"reshard", "status"}, connection));
    assertTrue(list.out().contains(workflow + " [COMPLETED]"), list.out());
  }

  static String[] concat(String[]... parts) {
    return java.util.Arrays.stream(parts).flatMap(java.util.Arrays::stream).toArray(String[]::new);
  }
}
