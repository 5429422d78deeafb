package io.shardwise.testkit.junit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.PostgresTopology;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Three classes of one configuration run in one test run, in order: a {@code scope = RUN} class, a
 * {@code scope = CLASS} class, another RUN class. The RUN classes share a topology that lives until
 * the run ends; the CLASS class gets a topology of its own, with none of the RUN classes' data, and
 * it is stopped after that class. (A CLASS class used to be served the RUN topology of the same
 * shape, and killed its servers under the classes that shared it.)
 */
class ScopeTest {
  private static final String SETTING = "application_name='scope_test'";
  private static final Map<String, PostgresTopology> SEEN = new ConcurrentHashMap<>();
  private static final Map<String, Long> TABLES_SEEN = new ConcurrentHashMap<>();
  private static final Map<String, Boolean> RUNNING_SEEN = new ConcurrentHashMap<>();
  private static volatile boolean launchedHere;

  static boolean launchedHere() {
    return launchedHere;
  }

  @Test
  void aClassScopedTopologyIsNeverTheSharedOneOfTheSameShape() {
    SummaryGeneratingListener listener = new SummaryGeneratingListener();
    LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
        .selectors(selectClass(RunScopedFirst.class), selectClass(ClassScoped.class), selectClass(RunScopedSecond.class))
        .configurationParameter("junit.jupiter.testclass.order.default", ClassOrderer.OrderAnnotation.class.getName())
        .build();
    launchedHere = true;
    try {
      LauncherFactory.create().execute(request, listener);
    } finally {
      launchedHere = false;
    }
    TestExecutionSummary summary = listener.getSummary();
    assertEquals(0, summary.getTotalFailureCount(), () -> "the launched classes failed: " + summary.getFailures()
        .stream().map(f -> f.getTestIdentifier().getDisplayName() + ": " + f.getException()).toList());
    assertEquals(3, summary.getTestsSucceededCount());

    PostgresTopology shared = SEEN.get("run first");
    assertSame(shared, SEEN.get("run second"), "the RUN classes share one topology");
    assertNotSame(shared, SEEN.get("class"), "the CLASS class has a topology of its own");
    assertEquals(0L, TABLES_SEEN.get("class"), "the CLASS topology holds none of the RUN class's tables");
    assertEquals(1L, TABLES_SEEN.get("run second"), "the second RUN class sees what the first left");
    assertFalse(RUNNING_SEEN.get("class topology after its class"), "the CLASS topology is stopped after its class");
    assertFalse(shared.shard(0).primary().isRunning(), "the shared topology is stopped when the run ends");
  }

  private static void record(String who, PostgresTopology pg) throws SQLException {
    SEEN.put(who, pg);
    TABLES_SEEN.put(who, count(pg.shard(0).primary(), "SELECT count(*) FROM pg_class WHERE relname = 'left_by_run_class'"));
  }

  private static long count(PostgresNode node, String sql) throws SQLException {
    try (Connection c = DriverManager.getConnection(node.jdbcUrl(), "postgres", "");
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Order(1)
  @EnabledIf("io.shardwise.testkit.junit.ScopeTest#launchedHere")
  @ShardedPostgres(settings = SETTING, scope = ShardedPostgres.Scope.RUN)
  static class RunScopedFirst {
    @Test
    void leavesATable(PostgresTopology pg) throws SQLException {
      record("run first", pg);
      try (Connection c = DriverManager.getConnection(pg.shard(0).primary().jdbcUrl(), "postgres", "");
          Statement s = c.createStatement()) {
        s.execute("CREATE TABLE left_by_run_class (id int)");
      }
    }
  }

  @Order(2)
  @EnabledIf("io.shardwise.testkit.junit.ScopeTest#launchedHere")
  @ShardedPostgres(settings = SETTING)
  static class ClassScoped {
    @Test
    void looksForTheTable(PostgresTopology pg) throws SQLException {
      record("class", pg);
    }
  }

  @Order(3)
  @EnabledIf("io.shardwise.testkit.junit.ScopeTest#launchedHere")
  @ShardedPostgres(settings = SETTING, scope = ShardedPostgres.Scope.RUN)
  static class RunScopedSecond {
    @Test
    void findsTheTable(PostgresTopology pg) throws SQLException {
      record("run second", pg);
      RUNNING_SEEN.put("class topology after its class", SEEN.get("class").shard(0).primary().isRunning());
    }
  }
}
