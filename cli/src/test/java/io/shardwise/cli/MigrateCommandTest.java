package io.shardwise.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** `shardwise migrate` and `--status` against two real shards: a failure, its report and exit code, the resume. */
@ShardedPostgres(shards = 2)
class MigrateCommandTest {

  @TempDir
  Path scripts;

  @Test
  void migrateStopsAtTheFailingShardAndResumesAfterTheFix(PostgresTopology pg) throws Exception {
    String s0 = pg.shard(0).primary().jdbcUrl();
    String s1 = pg.shard(1).primary().jdbcUrl();
    String[] target = {"--shard", "s0=" + s0, "--shard", "s1=" + s1, "--user", "postgres",
        "--locations", "filesystem:" + scripts};
    Files.writeString(scripts.resolve("V1__create_item.sql"), "CREATE TABLE item (id bigint PRIMARY KEY, sku text);");
    ReshardCommandTest.Run first = ReshardCommandTest.shardwise(with(target, "migrate"));
    assertEquals(0, first.exit(), first.err());
    assertEquals("s0: none -> 1 (1 script)\ns1: none -> 1 (1 script)", first.out().strip());

    ReshardCommandTest.sql(s1, "INSERT INTO item VALUES (1, NULL)");
    Files.writeString(scripts.resolve("V2__sku_required.sql"), "ALTER TABLE item ALTER COLUMN sku SET NOT NULL;");
    ReshardCommandTest.Run failed = ReshardCommandTest.shardwise(with(target, "migrate"));
    assertEquals(5, failed.exit(), failed.out() + failed.err());
    assertEquals("s0: 1 -> 2 (1 script)", failed.out().strip());
    assertTrue(failed.err().startsWith("shardwise: Migration stopped at shard 's1' ("
        + pg.shard(1).primary().host() + ":" + pg.shard(1).primary().port() + "): script V2__sku_required.sql"
        + " (version 2) failed with SQLSTATE 23502"), failed.err());

    ReshardCommandTest.Run status = ReshardCommandTest.shardwise(with(target, "migrate", "--status"));
    assertEquals(3, status.exit(), status.err());
    String host = pg.shard(0).primary().host();
    assertEquals("s0 (" + host + ":" + pg.shard(0).primary().port() + "): version 2, up to date\n"
        + "s1 (" + host + ":" + pg.shard(1).primary().port() + "): version 1, 1 pending", status.out().strip());

    ReshardCommandTest.sql(s1, "UPDATE item SET sku = 'A-1' WHERE id = 1");
    ReshardCommandTest.Run resumed = ReshardCommandTest.shardwise(with(target, "migrate"));
    assertEquals(0, resumed.exit(), resumed.err());
    assertEquals("s0: up to date at 2\ns1: 1 -> 2 (1 script)", resumed.out().strip());
    assertEquals(0, ReshardCommandTest.shardwise(with(target, "migrate", "--status")).exit());
    assertEquals(1, ReshardCommandTest.count(s1, "SELECT count(*) FROM information_schema.columns"
        + " WHERE table_name = 'item' AND column_name = 'sku' AND is_nullable = 'NO'"));
  }

  @Test
  void withoutShardsItSaysHowToNameThem() {
    org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("SHARDWISE_CONTROL_URL") == null,
        "SHARDWISE_CONTROL_URL names the shards in this environment");
    ReshardCommandTest.Run run = ReshardCommandTest.shardwise("migrate", "--locations", "filesystem:" + scripts);
    assertEquals(2, run.exit(), run.out());
    assertTrue(run.err().contains("name the shards: --control-url"), run.err());
  }

  private static String[] with(String[] target, String... command) {
    String[] all = new String[command.length + target.length];
    System.arraycopy(command, 0, all, 0, command.length);
    System.arraycopy(target, 0, all, command.length, target.length);
    return all;
  }
}
