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
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every {@code shardwise} command as an operator runs it: a JVM of its own ({@code java -cp ...
 * io.shardwise.cli.ShardwiseCli}, the shaded jar's main class), its standard output, standard
 * error and exit code as the shell sees them after the JVM exits; {@code plan} and {@code status}
 * change nothing in any database's catalog.
 */
@ShardedPostgres(shards = 2)
class CommandLineAsUserTest {
  static final String DB = "cli_user";

  record Run(int exit, String out, String err) {
    String both() {
      return "exit " + exit + "\nstdout:\n" + out + "\nstderr:\n" + err;
    }
  }

  /** Runs {@code shardwise args...} in a child JVM; one still running after two minutes is killed (a failure). */
  static Run shardwise(String... args) throws Exception {
    // a short-lived JVM: C1 alone and the serial collector start it faster and change no output
    List<String> command = new ArrayList<>(List.of(java(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
        System.getProperty("java.class.path"), ShardwiseCli.class.getName()));
    command.addAll(List.of(args));
    return run(command, Map.of());
  }

  static String java() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  /**
   * Runs {@code command} as a child process with no {@code SHARDWISE_*} variable of this JVM's
   * environment and {@code environment} on top; its output as the shell sees it once it exited.
   */
  static Run run(List<String> command, Map<String, String> environment) throws Exception {
    Path out = Files.createTempFile("shardwise-cli-out-", ".txt");
    Path err = Files.createTempFile("shardwise-cli-err-", ".txt");
    try {
      ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      builder.environment().keySet().removeIf(name -> name.startsWith("SHARDWISE_"));
      builder.environment().putAll(environment);
      Process p = builder.start();
      if (!p.waitFor(120, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError(String.join(" ", command) + " did not exit within 120 s; stdout:\n"
            + Files.readString(out));
      }
      return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /**
   * What an operator's command could have changed in a database: its relations (with kind and
   * replica identity), columns, triggers, functions, schemas, publications, subscriptions,
   * replication slots and prepared transactions.
   */
  static List<String> catalog(String url) throws Exception {
    List<String> kinds = new ArrayList<>();
    String notSystem = " NOT IN ('pg_catalog', 'information_schema', 'pg_toast')";
    for (String sql : List.of(
        "SELECT 'relation ' || n.nspname || '.' || c.relname || ' ' || c.relkind::text || c.relreplident::text"
            + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname" + notSystem,
        "SELECT 'column ' || table_schema || '.' || table_name || '.' || column_name FROM information_schema.columns"
            + " WHERE table_schema" + notSystem,
        "SELECT 'trigger ' || tgname FROM pg_trigger WHERE NOT tgisinternal",
        "SELECT 'function ' || n.nspname || '.' || p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid ="
            + " p.pronamespace WHERE n.nspname" + notSystem,
        "SELECT 'schema ' || nspname FROM pg_namespace",
        "SELECT 'publication ' || pubname FROM pg_publication",
        "SELECT 'subscription ' || subname FROM pg_subscription",
        "SELECT 'slot ' || slot_name FROM pg_replication_slots",
        "SELECT 'prepared ' || gid FROM pg_prepared_xacts")) {
      kinds.add(lines(url, sql));
    }
    return kinds;
  }

  /** The rows of {@code sql}'s one text column, sorted, one a line. */
  static String lines(String url, String sql) throws Exception {
    try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT coalesce(string_agg(r, E'\\n' ORDER BY r), '') FROM (" + sql
            + ") q(r)")) {
      rs.next();
      return rs.getString(1);
    }
  }

  @Test
  void everyCommandPrintsWhatItDidAndPlanAndStatusChangeNothing(PostgresTopology pg) throws Exception {
    for (int shard = 0; shard < 2; shard++) {
      ReshardCommandTest.sql(pg.shard(shard).primary().jdbcUrl(), "DROP DATABASE IF EXISTS " + DB + " WITH (FORCE)",
          "CREATE DATABASE " + DB);
    }
    ReshardCommandTest.sql(pg.shard(0).primary().jdbcUrl(), "DROP DATABASE IF EXISTS " + DB + "_control WITH (FORCE)",
        "CREATE DATABASE " + DB + "_control");
    String s0 = pg.shard(0).primary().jdbcUrl(DB);
    String s1 = pg.shard(1).primary().jdbcUrl(DB);
    String control = pg.shard(0).primary().jdbcUrl(DB + "_control");
    for (String url : List.of(s0, s1)) {
      ReshardCommandTest.sql(url, "CREATE TABLE tenant_event (id bigint PRIMARY KEY, tenant_id bigint NOT NULL,"
          + " payload text)");
    }
    String bucket = BucketStrategy.sqlBucket(ShardKeyType.LONG, "tenant_id", 1024);
    ReshardCommandTest.sql(s0, "INSERT INTO tenant_event SELECT g, g % 500, 'event ' || g FROM generate_series(1, 5000)"
        + " g WHERE " + bucket.replace("tenant_id", "(g % 500)") + " < 512");
    long moving = ReshardCommandTest.count(s0, "SELECT count(*) FROM tenant_event WHERE " + bucket
        + " BETWEEN 0 AND 99");
    ControlDatabase map = new ControlDatabase(control, "postgres", null);
    map.createSchema();
    map.initialize(ShardMap.evenlyAssigned(1, List.of(ShardDescriptor.of("s0", s0), ShardDescriptor.of("s1", s1)),
        1024));

    String[] connection = {"--control-url", control, "--user", "postgres"};
    String[] move = {"--from", "s0", "--to", "s1", "--buckets", "0-99", "--table", "tenant_event:tenant_id:long"};

    Run version = shardwise("--version");
    assertEquals(0, version.exit(), version.both());
    assertTrue(version.out().startsWith("shardwise 0."), version.both());
    Run help = shardwise("reshard", "plan", "--help");
    assertEquals(0, help.exit(), help.both());
    assertTrue(help.out().contains("Usage: shardwise reshard plan") && help.out().contains("Example:"), help.both());
    Run exitCodes = shardwise("--help");
    assertTrue(exitCodes.out().contains("Exit codes:"), exitCodes.both());

    String mapVersion = "SELECT version::text FROM shardwise.map_version";
    Callable<List<List<String>>> everything = () -> List.of(catalog(control), catalog(s0), catalog(s1),
        List.of(lines(control, mapVersion)));
    List<List<String>> before = everything.call();
    Run plan = shardwise(ReshardCommandTest.concat(new String[] {"reshard", "plan"}, connection, move));
    assertEquals(0, plan.exit(), plan.both());
    assertTrue(plan.out().contains(String.format("%,d rows", moving)), plan.both());
    assertTrue(plan.out().contains("replica identity: index shardwise_ri_tenant_event"), plan.both());
    Run none = shardwise(ReshardCommandTest.concat(new String[] {"reshard", "status"}, connection));
    assertEquals(0, none.exit(), none.both());
    assertEquals("No moves are recorded in the control database.", none.out().strip(), none.both());
    assertEquals(before, everything.call(),
        "plan and status changed nothing in the control database or on a shard");

    Run refused = shardwise(ReshardCommandTest.concat(new String[] {"reshard", "plan"}, connection,
        new String[] {"--from", "s0", "--to", "s1", "--buckets", "600-610", "--table", "tenant_event:tenant_id:long"}));
    assertEquals(2, refused.exit(), refused.both());
    assertTrue(refused.err().contains("not owned by 's0'") && refused.out().isEmpty(), refused.both());

    Run start = shardwise(ReshardCommandTest.concat(new String[] {"reshard", "start"}, connection, move));
    assertEquals(0, start.exit(), start.both());
    Matcher id = Pattern.compile("move (mv[0-9a-f]+) \\[VERIFIED\\]").matcher(start.out());
    assertTrue(id.find(), start.both());
    String workflow = id.group(1);
    String[] it = {workflow};

    Run status = shardwise(ReshardCommandTest.concat(new String[] {"reshard", "status"}, it, connection));
    assertEquals(0, status.exit(), status.both());
    assertTrue(status.out().contains("catch-up lag") && status.out().contains("present"), status.both());
    Run verify = shardwise(ReshardCommandTest.concat(new String[] {"reshard", "verify"}, it, connection));
    assertEquals(0, verify.exit(), verify.both());
    assertTrue(verify.out().contains("source and target are equal"), verify.both());
    Run reads = shardwise(ReshardCommandTest.concat(new String[] {"reshard", "switch-reads"}, it, connection));
    assertEquals(0, reads.exit(), reads.both());
    assertTrue(reads.out().contains(workflow + " [READS_SWITCHED]"), reads.both());
    Run readsBack = shardwise(ReshardCommandTest.concat(new String[] {"reshard", "rollback"}, it, connection));
    assertEquals(0, readsBack.exit(), readsBack.both());
    assertTrue(readsBack.out().contains(workflow + " [VERIFIED]"), readsBack.both());
    Run resume = shardwise(ReshardCommandTest.concat(new String[] {"reshard", "resume"}, it, connection));
    assertEquals(0, resume.exit(), resume.both());
    assertTrue(resume.out().contains(workflow + " [VERIFIED]"), resume.both());
    Run writes = shardwise(ReshardCommandTest.concat(new String[] {"reshard", "switch-writes"}, it, connection,
        new String[] {"--set", "shardwise.reshard.pause_limit_ms=2000"}));
    assertEquals(0, writes.exit(), writes.both());
    assertTrue(writes.out().startsWith("Writes switched"), writes.both());
    Run complete = shardwise(ReshardCommandTest.concat(new String[] {"reshard", "complete"}, it, connection,
        new String[] {"--set", "shardwise.reshard.fence_grace_ms=0"}));
    assertEquals(0, complete.exit(), complete.both());
    assertTrue(complete.out().contains(workflow + " [COMPLETED]"), complete.both());
    assertEquals(moving, ReshardCommandTest.count(s1, "SELECT count(*) FROM tenant_event"));

    String[] second = {"--from", "s0", "--to", "s1", "--buckets", "100-149", "--table", "tenant_event:tenant_id:long"};
    Run again = shardwise(ReshardCommandTest.concat(new String[] {"reshard", "start"}, connection, second));
    Matcher secondId = Pattern.compile("move (mv[0-9a-f]+) \\[VERIFIED\\]").matcher(again.out());
    assertTrue(again.exit() == 0 && secondId.find(), again.both());
    Run cancel = shardwise(ReshardCommandTest.concat(new String[] {"reshard", "cancel", secondId.group(1)},
        connection));
    assertEquals(0, cancel.exit(), cancel.both());
    assertTrue(cancel.out().contains(secondId.group(1) + " [CANCELLED]"), cancel.both());
    Run list = shardwise(ReshardCommandTest.concat(new String[] {"reshard", "status"}, connection));
    assertTrue(list.out().contains(workflow + " [COMPLETED]") && list.out().contains(secondId.group(1)
        + " [CANCELLED]"), list.both());

    Run ddl = shardwise("ddl", "--role", "app");
    assertEquals(0, ddl.exit(), ddl.both());
    assertTrue(ddl.out().contains("GRANT USAGE ON SCHEMA shardwise TO \"app\";"), ddl.both());
  }
}
