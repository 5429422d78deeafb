package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.shardwise.hibernate.bank.Account;
import io.shardwise.hibernate.operations.OperationsPage;
import io.shardwise.testkit.PostgresShard;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.io.File;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operations page in a real headless browser (Debian's {@code chromium}; {@code .ci/run}
 * installs it) against two shards with a streaming replica each: the page's script fetches the
 * state, and the DOM it renders is checked — the 1,024-cell bucket grid, the nodes with their
 * roles, the hot key, and a prepared transaction left in doubt on a shard. A screenshot of the
 * page is written to {@code target/operations-page.png} (docs/operations-page.png is a copy).
 */
@ShardedPostgres(shards = 2, replicas = 1)
class OperationsPageTest {
  private static final long HOT_KEY = 9001;
  private static final String GID = "ops-page-test-in-doubt";
  private static PostgresTopology topology;
  private static SessionFactory sessionFactory;
  private static ShardedSessions shards;

  @BeforeAll
  static void start(PostgresTopology pg) {
    topology = pg;
    sessionFactory = BankFixture.withReplicas(BankFixture.builder(pg), pg).schema("create").buildSessionFactory();
    shards = ShardedSessions.of(sessionFactory);
    BankFixture.awaitReplicasServing(pg, shards);
  }

  @AfterAll
  static void stop() {
    if (sessionFactory != null) {
      sessionFactory.close();
    }
  }

  @Test
  void thePageRendersTheShardMapNodesHotKeysAndInDoubtTransactions() throws Exception {
    String chromium = chromium();
    shards.forKey(HOT_KEY).inTransaction(s -> s.persist(new Account(HOT_KEY, 100)));
    for (int i = 0; i < 200; i++) {
      shards.forKey(HOT_KEY).readOnly().fromSession(s -> s.find(Account.class, HOT_KEY));
    }
    for (long k = 1; k <= 100; k++) {
      long key = k;
      shards.forKey(key).fromSession(s -> s.find(Account.class, key));
    }
    PostgresShard inDoubtShard = topology.shard(1);
    try (Connection c = inDoubtShard.primary().dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute("BEGIN");
      s.execute("SELECT 1");
      s.execute("PREPARE TRANSACTION '" + GID + "'");
    }
    try (OperationsPage page = shards.operationsPage(0)) {
      assertEquals("127.0.0.1", page.uri().getHost(), "bound to the loopback interface by default");
      String dom = run(chromium, "--dump-dom", page.uri().toString());
      assertTrue(dom.contains("updated "), "the page's script did not render the state:\n" + dom);
      assertEquals(1024, count(dom, "<div class=\"cell\""), "bucket cells in the grid");
      assertEquals(2, count(dom, "data-role=\"primary\""), "primaries listed");
      assertEquals(2, count(dom, "data-role=\"replica\""), "replicas listed");
      assertTrue(dom.contains("<td class=\"key\">" + HOT_KEY + "</td>"), "hot key not shown:\n" + section(dom,
          "hot-keys"));
      String hotRow = row(dom, "<td class=\"key\">" + HOT_KEY + "</td>");
      assertTrue(hotRow.contains(shards.shardFor(HOT_KEY)), "the hot key's row names its shard: " + hotRow);
      assertTrue(hotRow.contains("<td>201</td>"), "201 sessions went to the hot key (capped by its bucket): " + hotRow);
      assertEquals(2, count(section(dom, "nodes"), "<td>CLOSED</td>"), "both primaries used, breakers closed:\n"
          + section(dom, "nodes"));
      String inDoubt = section(dom, "in-doubt");
      assertTrue(inDoubt.contains(GID) && inDoubt.contains(ShopFixture.shardId(inDoubtShard.index())),
          "the prepared transaction on shard 1 is not listed:\n" + inDoubt);
      assertTrue(dom.contains(inDoubtShard.replica(0).host() + ":" + inDoubtShard.replica(0).port()),
          "the replica's address is not listed");

      HttpResponse<String> post = HttpClient.newHttpClient().send(HttpRequest.newBuilder(page.uri().resolve("api/state"))
          .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(405, post.statusCode(), "the page is read-only");

      Path screenshot = Path.of("target", "operations-page.png").toAbsolutePath();
      Files.deleteIfExists(screenshot);
      run(chromium, "--screenshot=" + screenshot, "--window-size=1280,1000", page.uri().toString());
      assertTrue(Files.size(screenshot) > 10_000, "no screenshot written at " + screenshot);
    } finally {
      try (Connection c = inDoubtShard.primary().dataSource().getConnection(); Statement s = c.createStatement()) {
        s.execute("ROLLBACK PREPARED '" + GID + "'");
      }
    }
  }

  /** The browser, or a failure that says how to install it: this test never skips. */
  private static String chromium() {
    for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
      for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
        File candidate = new File(dir, name);
        if (candidate.canExecute()) {
          return candidate.getPath();
        }
      }
    }
    return fail("No headless browser found on PATH (chromium): install Debian's package with"
        + " 'apt-get install -y chromium' (.ci/run does so when it is missing)");
  }

  private static String run(String chromium, String... arguments) throws IOException, InterruptedException {
    Path profile = Files.createTempDirectory("shardwise-chromium-");
    List<String> command = new ArrayList<>(List.of(chromium, "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--user-data-dir=" + profile, "--virtual-time-budget=5000"));
    command.addAll(List.of(arguments));
    Path log = Files.createTempFile("shardwise-chromium-", ".log");
    Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
    byte[] out = process.getInputStream().readAllBytes();
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      fail("chromium did not finish within 120 s: " + command);
    }
    assertEquals(0, process.exitValue(), "chromium failed: " + Files.readString(log));
    return new String(out, StandardCharsets.UTF_8);
  }

  private static int count(String text, String fragment) {
    int n = 0;
    for (int i = text.indexOf(fragment); i >= 0; i = text.indexOf(fragment, i + 1)) {
      n++;
    }
    return n;
  }

  /** The table with this id, as rendered. */
  private static String section(String dom, String tableId) {
    Matcher m = Pattern.compile("<table id=\"" + tableId + "\">.*?</table>", Pattern.DOTALL).matcher(dom);
    return m.find() ? m.group() : "(no table " + tableId + ")";
  }

  /** The table row holding {@code fragment}. */
  private static String row(String dom, String fragment) {
    int at = dom.indexOf(fragment);
    return dom.substring(dom.lastIndexOf("<tr", at), dom.indexOf("</tr>", at));
  }
}
