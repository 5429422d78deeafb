package io.shardwise.advisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.advisor.DatabaseStatistics.StatementCalls;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A query log's two forms: a plain file of SQL statements (each line one call, comments and blank
 * lines skipped) and a server log whose multi-line statements continue on tab-indented lines, with
 * the extended protocol's parse and bind steps left out. {@code MarketplaceDatabaseTest} reads a
 * log PostgreSQL itself wrote.
 */
class QueryLogTest {
  @TempDir
  Path work;

  @Test
  void aPlainFileCountsEachLineOnceAndWeighsTheSaasQueries() throws Exception {
    Path log = work.resolve("statements.sql");
    Files.writeString(log, """
        -- captured from the application's proxy
        select p.id, p.title from projects p where p.tenant_id = 4;
        select p.id, p.title from projects p where p.tenant_id = 4;

        SELECT t.id FROM tasks t WHERE t.project_id = 17
        select p.id, p.title from projects p where p.tenant_id = 9;
        insert into audit_log values (1, 'not a declared query')
        """);
    assertEquals(List.of(new StatementCalls("select p.id, p.title from projects p where p.tenant_id = 4;", 2),
        new StatementCalls("SELECT t.id FROM tasks t WHERE t.project_id = 17", 1),
        new StatementCalls("select p.id, p.title from projects p where p.tenant_id = 9;", 1),
        new StatementCalls("insert into audit_log values (1, 'not a declared query')", 1)), QueryLog.read(log));

    Advice advice = ShardKeyAdvisor.advise(List.of(SaasModelTest.TEST_CLASSES), List.of("io.shardwise.advisor.saas"),
        null, null, log);
    Proposal best = advice.best();
    assertEquals(3, Sources.weight(best, "Project.ofTenant"));
    assertEquals(1, Sources.weight(best, "Task.ofProject"));
    assertEquals(0, Sources.weight(best, "Member.byEmail"));
    assertEquals(3.0 / 4, best.singleShardShare, 1e-9);
    assertTrue(advice.text().startsWith("Shardwise shard-key advice: 7 entities, 11 queries, no database (shape only:"
        + " give --jdbc-url for sizes, writes and balance), queries weighted by the query log statements.sql (4 of"
        + " 5 calls matched a declared query)"), advice.text());
    assertTrue(advice.json().contains("\"weightedBy\": \"the query log statements.sql (4 of 5 calls matched"),
        advice.json());
  }

  @Test
  void aServerLogCountsExecutionsAndJoinsContinuedLines() throws Exception {
    Path log = work.resolve("postgresql.log");
    Files.writeString(log, String.join("\n",
        "2026-12-05 11:00:00.001 UTC [411] LOG:  duration: 0.050 ms  parse <unnamed>: select t1_0.id from tasks t1_0"
            + " where t1_0.project_id=$1",
        "2026-12-05 11:00:00.002 UTC [411] LOG:  duration: 0.020 ms  bind <unnamed>: select t1_0.id from tasks t1_0"
            + " where t1_0.project_id=$1",
        "2026-12-05 11:00:00.002 UTC [411] DETAIL:  parameters: $1 = '17'",
        "2026-12-05 11:00:00.003 UTC [411] LOG:  duration: 0.110 ms  execute <unnamed>: select t1_0.id from tasks"
            + " t1_0 where t1_0.project_id=$1",
        "2026-12-05 11:00:00.003 UTC [411] DETAIL:  parameters: $1 = '17'",
        "2026-12-05 11:00:00.004 UTC [411] LOG:  duration: 0.090 ms  execute S_1: select t1_0.id from tasks t1_0"
            + " where t1_0.project_id=$1",
        "2026-12-05 11:00:00.005 UTC [412] LOG:  statement: SELECT i.id",
        "\tFROM invoices i",
        "\tWHERE i.tenant_id = 3",
        "2026-12-05 11:00:00.006 UTC [412] LOG:  checkpoint starting: time",
        ""));
    assertEquals(List.of(new StatementCalls("select t1_0.id from tasks t1_0 where t1_0.project_id=$1", 2),
        new StatementCalls("SELECT i.id FROM invoices i WHERE i.tenant_id = 3", 1)), QueryLog.read(log));
  }

  @Test
  void anEmptyOrMissingLogIsRefusedWithWhatToPass() throws Exception {
    Path empty = Files.writeString(work.resolve("empty.log"), "-- nothing\n\n");
    AdvisorException none = assertThrows(AdvisorException.class, () -> QueryLog.read(empty));
    assertTrue(none.getMessage().startsWith("The query log " + empty + " holds no statement: pass a PostgreSQL log"),
        none.getMessage());
    AdvisorException missing = assertThrows(AdvisorException.class, () -> QueryLog.read(work.resolve("gone.log")));
    assertTrue(missing.getMessage().startsWith("Cannot read the query log " + work.resolve("gone.log")),
        missing.getMessage());
  }
}
