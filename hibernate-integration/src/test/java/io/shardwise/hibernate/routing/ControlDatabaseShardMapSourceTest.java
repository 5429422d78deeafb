package io.shardwise.hibernate.routing;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.routing.ControlDatabaseTest.TestDatabases;
import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.junit.Node;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@ShardedPostgres(shards = 1, scope = ShardedPostgres.Scope.RUN)
class ControlDatabaseShardMapSourceTest {
  static final String DATABASE = "control_source_test";
  static final Duration BOUND = Duration.ofSeconds(5);
  /** Long enough that only notifications (or a reconnect) can deliver a change within a test. */
  static final Duration NO_POLLING = Duration.ofMinutes(5);
  static final List<ShardDescriptor> SHARDS = List.of(
      ShardDescriptor.of("s1", "jdbc:postgresql://db1:5432/app"),
      ShardDescriptor.of("s2", "jdbc:postgresql://db2:5432/app"));

  static String url;
  ControlDatabase control;
  final List<ShardMapSource> sources = new ArrayList<>();

  @BeforeAll
  static void createDatabase(@Node(shard = 0) PostgresNode node) throws SQLException {
    url = TestDatabases.recreate(node, DATABASE);
  }

  @BeforeEach
  void initializedControlDatabase() throws SQLException {
    TestDatabases.execute(url, "DROP SCHEMA IF EXISTS shardwise CASCADE");
    control = new ControlDatabase(url, "postgres", null);
    control.createSchema();
    control.initialize(ShardMap.evenlyAssigned(1, SHARDS, 32));
  }

  @AfterEach
  void closeSources() {
    sources.forEach(ShardMapSource::close);
  }

  ControlDatabaseShardMapSource start(Duration versionCheckInterval) {
    ControlDatabaseShardMapSource source =
        ControlDatabaseShardMapSource.builder(control).versionCheckInterval(versionCheckInterval).start();
    sources.add(source);
    return source;
  }

  static ConditionFactory waiting() {
    return await().atMost(BOUND).pollInterval(Duration.ofMillis(2));
  }

  @Test
  void aChangeReachesEveryRunningSourceByNotification() {
    ControlDatabaseShardMapSource a = start(NO_POLLING);
    ControlDatabaseShardMapSource b = start(NO_POLLING);
    assertEquals(1, a.current().version());
    Map<Long, Long> arrivedAtA = new ConcurrentHashMap<>();
    Map<Long, Long> arrivedAtB = new ConcurrentHashMap<>();
    List<String> listenerSawStaleCurrent = new CopyOnWriteArrayList<>();
    a.addListener(map -> {
      arrivedAtA.put(map.version(), System.nanoTime());
      if (a.current().version() < map.version()) {
        listenerSawStaleCurrent.add("A: " + map.version());
      }
    });
    b.addListener(map -> {
      arrivedAtB.put(map.version(), System.nanoTime());
      if (b.current().version() < map.version()) {
        listenerSawStaleCurrent.add("B: " + map.version());
      }
    });

    int changes = 50;
    List<Long> latenciesA = new ArrayList<>();
    List<Long> latenciesB = new ArrayList<>();
    List<Long> afterReturnA = new ArrayList<>();
    List<Long> callDurations = new ArrayList<>();
    for (int i = 0; i < changes; i++) {
      long t0 = System.nanoTime();
      long version = i % 2 == 0
          ? control.upsertShard(new ShardDescriptor("s2", "jdbc:postgresql://db2:5432/app", List.of(), 2 + i,
              ShardState.ACTIVE))
          : control.assignBuckets(Map.of(i % 32, i % 4 == 1 ? "s2" : "s1"));
      long returned = System.nanoTime();
      callDurations.add(returned - t0);
      waiting().until(() -> arrivedAtA.containsKey(version) && arrivedAtB.containsKey(version));
      latenciesA.add(arrivedAtA.get(version) - t0);
      latenciesB.add(arrivedAtB.get(version) - t0);
      afterReturnA.add(arrivedAtA.get(version) - returned);
    }

    System.out.println("Shard map propagation over " + changes + " changes, from the start of the change call "
        + "(connect + commit) to the listener: source A " + percentiles(latenciesA) + "; source B "
        + percentiles(latenciesB) + ". The change call itself (new connection, lock, update, notify, commit) took "
        + percentiles(callDurations) + "; from its return to source A's listener (negative: the listener ran "
        + "before the call returned): " + percentiles(afterReturnA));
    assertEquals(List.of(), listenerSawStaleCurrent, "listeners run after current() returns the new map");
    assertEquals(control.load(), a.current());
    assertEquals(control.load(), b.current());
  }

  @Test
  void aStagedChangeIsComputedBeforeItCommitsAndInstalledAsItIsWhenItDoes() throws SQLException {
    // buckets 0-7 of s1 are copied to s2 and their reads switched there: what a write switch finds
    Map<Integer, String> toS2 = new java.util.TreeMap<>();
    for (int b = 0; b < 8; b++) {
      toS2.put(b, "s2");
    }
    control.setCopyHolders(toS2);
    long base = control.switchReads(-1, toS2);
    ControlDatabaseShardMapSource source = start(NO_POLLING);
    waiting().until(() -> source.current().version() == base);
    Map<Long, ShardMap> staged = new ConcurrentHashMap<>();
    List<ShardMap> published = new CopyOnWriteArrayList<>();
    source.addStagedListener(map -> staged.put(map.version(), map));
    source.addListener(published::add);

    String token = control.announceStaged(base, toS2);
    waiting().until(() -> staged.containsKey(base + 1));
    assertEquals(base, source.current().version(), "a staged map is not routed by");
    assertEquals(List.of(), published);

    try (java.sql.Connection c = control.openConnection("test-switch")) {
      ControlDatabase.StagedAssignment change = control.stageAssignment(c, base, toS2, "shardwise-switch-test", token);
      assertEquals(base + 1, change.commit(5_000));
      change.announce();
    }
    waiting().until(() -> source.current().version() == base + 1);
    assertTrue(source.current() == staged.get(base + 1), "the commit installed the staged map itself, without a read");
    ShardMap stored = control.load();
    assertEquals(stored, source.current(), "the staged map is the one the commit stored");
    assertEquals("s2", stored.ownerOf(3));
    assertEquals("s1", stored.copyHolderOf(3), "the old owner keeps the copy");
    assertEquals("s2", stored.readOwnerOf(3));
    assertEquals("s1", stored.ownerOf(8));
  }

  @Test
  void anotherChangeToTheStagedVersionIsLoadedNeverTakenFromTheStagedMap() {
    ControlDatabaseShardMapSource source = start(NO_POLLING);
    Map<Integer, String> staged = Map.of(0, "s2", 1, "s2");
    List<ShardMap> stagedSeen = new CopyOnWriteArrayList<>();
    source.addStagedListener(stagedSeen::add);
    control.announceStaged(1, staged);
    waiting().until(() -> stagedSeen.size() == 1);

    control.assignBuckets(1, Map.of(20, "s1"));   // version 2, but not the staged change: its notification has no token
    waiting().until(() -> source.current().version() == 2);
    assertEquals(control.load(), source.current());
    assertEquals("s1", source.current().ownerOf(0), "the staged assignment never committed");
    assertEquals("s1", source.current().ownerOf(20));
    assertTrue(stagedSeen.get(0) != source.current());
  }

  @Test
  void aChangeMadeWhileTheListeningSessionIsGoneIsSeenAfterReconnecting() throws SQLException {
    ControlDatabaseShardMapSource source = start(NO_POLLING);
    int oldPid = listenerPid(source);

    // first a change without any notification, so that only the reconnect's version check can find it
    TestDatabases.execute(url, "UPDATE shardwise.shard SET weight = 7 WHERE id = 's2'; "
        + "UPDATE shardwise.map_version SET version = version + 1");
    assertEquals(1, source.current().version(), "no notification and no polling: the source cannot know yet");
    TestDatabases.execute(url, "SELECT pg_terminate_backend(" + oldPid + ")");

    waiting().until(() -> source.current().version() == 2);
    assertEquals(7, source.current().shard("s2").weight());
    int newPid = waiting().until(() -> listenerPidOrZero(source), pid -> pid != 0);
    assertNotEquals(oldPid, newPid, "the source reconnected");

    // then the ordinary case: kill the session and change the map through the ControlDatabase at once
    TestDatabases.execute(url, "SELECT pg_terminate_backend(" + newPid + ")");
    long version = control.setShardState("s1", ShardState.READ_ONLY);
    waiting().until(() -> source.current().version() == version);
    assertEquals(ShardState.READ_ONLY, source.current().shard("s1").state());
  }

  @Test
  void theVersionCheckCatchesAChangeThatWasNeverNotified() throws SQLException {
    ControlDatabaseShardMapSource source = start(Duration.ofMillis(100));
    List<Long> seen = new CopyOnWriteArrayList<>();
    source.addListener(map -> {
      throw new IllegalStateException("a failing listener must not stop the others");
    });
    source.addListener(map -> seen.add(map.version()));

    TestDatabases.execute(url, "UPDATE shardwise.bucket SET shard_id = 's2' WHERE bucket = 0; "
        + "UPDATE shardwise.map_version SET version = version + 1");

    waiting().until(() -> !seen.isEmpty());
    assertEquals(List.of(2L), seen, "the healthy listener ran once, after the failing one");
    assertEquals(2, source.current().version());
    assertEquals("s2", source.current().ownerOf(0));
  }

  @Test
  void closeStopsTheThreadAndEndsTheSession() throws SQLException {
    ControlDatabaseShardMapSource source = start(Duration.ofMillis(50));
    assertTrue(threadAlive(source.name()));
    assertNotEquals(0, listenerPidOrZero(source));

    source.close();
    source.close(); // a second close does nothing

    assertFalse(threadAlive(source.name()), "close() joins the follower thread");
    waiting().until(() -> listenerPidOrZero(source) == 0);
    assertEquals(1, source.current().version(), "the last snapshot stays readable");
  }

  @Test
  void startRefusesAnEmptyControlDatabaseAndLeavesNothingBehind() throws SQLException {
    TestDatabases.execute(url, "DROP SCHEMA shardwise CASCADE");
    control.createSchema();
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> start(NO_POLLING));
    assertTrue(e.getMessage().contains("holds no shard map yet") && e.getMessage().contains(url), e.getMessage());
    waiting().until(() -> TestDatabases.strings(url,
        "SELECT pid FROM pg_stat_activity WHERE application_name LIKE 'shardwise-shard-map-%'").isEmpty());
    assertFalse(Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getName().startsWith("shardwise-shard-map-") && t.isAlive()), "no follower thread started");
  }

  @Test
  void startFailsClearlyWhenTheControlDatabaseIsUnreachable() {
    ControlDatabase nowhere = new ControlDatabase("jdbc:postgresql://127.0.0.1:1/none?connectTimeout=2", "postgres",
        null);
    ControlDatabaseException e = assertThrows(ControlDatabaseException.class,
        () -> ControlDatabaseShardMapSource.builder(nowhere).start());
    assertTrue(e.getMessage().contains("jdbc:postgresql://127.0.0.1:1/none?connectTimeout=2"), e.getMessage());

    IllegalArgumentException badInterval = assertThrows(IllegalArgumentException.class,
        () -> ControlDatabaseShardMapSource.builder(control).versionCheckInterval(Duration.ZERO));
    assertTrue(badInterval.getMessage().contains("versionCheckInterval") && badInterval.getMessage().contains(url),
        badInterval.getMessage());
  }

  static String percentiles(List<Long> nanos) {
    List<Long> sorted = new ArrayList<>(nanos);
    Collections.sort(sorted);
    long p50 = sorted.get((sorted.size() - 1) / 2);
    long p99 = sorted.get((int) Math.ceil(sorted.size() * 0.99) - 1);
    long max = sorted.get(sorted.size() - 1);
    return String.format("p50 %.2f ms, p99 %.2f ms, max %.2f ms", millis(p50), millis(p99), millis(max));
  }

  static double millis(long nanos) {
    return nanos / (double) TimeUnit.MILLISECONDS.toNanos(1);
  }

  static int listenerPid(ControlDatabaseShardMapSource source) {
    return waiting().until(() -> listenerPidOrZero(source), pid -> pid != 0);
  }

  static int listenerPidOrZero(ControlDatabaseShardMapSource source) throws SQLException {
    List<String> pids = TestDatabases.strings(url,
        "SELECT pid FROM pg_stat_activity WHERE application_name = '" + source.name() + "'");
    assertTrue(pids.size() <= 1, "one session per source, found " + pids);
    return pids.isEmpty() ? 0 : Integer.parseInt(pids.get(0));
  }

  static boolean threadAlive(String name) {
    return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(name) && t.isAlive());
  }

  @Test
  void aLeasedRouterRegistersBeforeItReadsAcknowledgesEachVersionAndLeavesWhenClosed() {
    control.prepareRouterTable(true);
    ControlDatabaseShardMapSource source = ControlDatabaseShardMapSource.builder(control)
        .versionCheckInterval(NO_POLLING).routerLease(Duration.ofMinutes(20), "shop").start();
    sources.add(source);
    ControlDatabaseShardMapSource unleased = start(NO_POLLING);
    assertTrue(source.leased());
    assertFalse(unleased.leased());
    unleased.checkFresh(); // no lease: never refuses
    source.checkFresh();
    List<ControlDatabase.RouterLease> routers = control.routers();
    assertEquals(1, routers.size(), "only the leased source registers: " + routers);
    ControlDatabase.RouterLease row = routers.get(0);
    assertEquals(source.routerId(), row.id());
    assertEquals("shop", row.unit());
    assertEquals(ProcessHandle.current().pid(), row.pid());
    assertEquals(1, row.version());
    assertEquals(1_200_000, row.leaseMs());
    assertTrue(row.live(), row.toString());

    long version = control.assignBuckets(Map.of(3, "s2"));
    waiting().until(() -> control.routers().get(0).version() == version);
    assertEquals(version, source.current().version(), "acknowledged only once installed");

    source.close();
    assertEquals(List.of(), control.routers(), "a closed router removes its row");
  }

  @Test
  void aLeaseShorterThanThreeVersionChecksIsRefused() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ControlDatabaseShardMapSource
        .builder(control).versionCheckInterval(Duration.ofSeconds(1)).routerLease(Duration.ofMillis(2999), "shop")
        .start());
    assertTrue(e.getMessage().contains("must be at least three version check intervals (1000 ms each)"),
        e.getMessage());
  }
}
