package io.shardwise.hibernate.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.testkit.PostgresNode;
import io.shardwise.testkit.junit.Node;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@ShardedPostgres(shards = 1, scope = ShardedPostgres.Scope.RUN)
class ControlDatabaseTest {
  static final String DATABASE = "control_database_test";
  static final List<ShardDescriptor> SHARDS = List.of(
      new ShardDescriptor("s1", "jdbc:postgresql://db1:5432/app", List.of("jdbc:postgresql://db1r:5432/app"), 1,
          ShardState.ACTIVE),
      ShardDescriptor.of("s2", "jdbc:postgresql://db2:5432/app"));

  static String url;
  ControlDatabase control;

  @BeforeAll
  static void createDatabase(@Node(shard = 0) PostgresNode node) throws SQLException {
    url = TestDatabases.recreate(node, DATABASE);
  }

  @BeforeEach
  void emptyControlDatabase() throws SQLException {
    TestDatabases.execute(url, "DROP SCHEMA IF EXISTS shardwise CASCADE");
    control = new ControlDatabase(url, "postgres", null);
  }

  @Test
  void createSchemaIsIdempotentAndSafeToRunConcurrently() throws Exception {
    control.createSchema();
    control.createSchema();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Object>> runs = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        runs.add(pool.submit(() -> {
          control.createSchema();
          return null;
        }));
      }
      for (Future<Object> run : runs) {
        run.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertEquals(List.of("bucket", "map_version", "shard"), TestDatabases.strings(url,
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'shardwise' ORDER BY 1"));
  }

  @Test
  void initializeThenLoadReturnsTheSameMap() {
    control.createSchema();
    ShardMap map = ShardMap.evenlyAssigned(3, SHARDS, 64);
    control.initialize(map);

    ShardMap loaded = control.load();
    assertEquals(map, loaded);
    assertEquals(List.of("s1", "s2"), List.copyOf(loaded.shards().keySet()), "shard order survives the round trip");
    assertEquals(List.of("jdbc:postgresql://db1r:5432/app"), loaded.shard("s1").replicaUrls());
    assertEquals("s1", loaded.ownerOf(0));
    assertEquals("s2", loaded.ownerOf(63));
    assertEquals(3, control.version());
  }

  @Test
  void initializeWithTheSameMapAgainIsANoOpButADifferentMapIsRefused() {
    control.createSchema();
    ShardMap map = ShardMap.evenlyAssigned(1, SHARDS, 16);
    control.initialize(map);
    assertEquals(map, control.initialize(ShardMap.evenlyAssigned(1, SHARDS, 16)));

    String[] owners = map.bucketOwnersCopy();
    owners[5] = "s2";
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> control.initialize(new ShardMap(1, SHARDS, owners)));
    assertTrue(e.getMessage().contains("bucket 5 belongs to 's1' in the stored map and to 's2' in the given one"),
        e.getMessage());
    assertTrue(e.getMessage().contains(url), "names the control database: " + e.getMessage());
    assertTrue(e.getMessage().contains("assignBuckets"), "says what to do instead: " + e.getMessage());
    assertEquals(map, control.load(), "the stored map is unchanged");
  }

  @Test
  void everyChangeRaisesTheVersionByOne() {
    control.createSchema();
    control.initialize(ShardMap.evenlyAssigned(10, SHARDS, 8));

    assertEquals(11, control.upsertShard(ShardDescriptor.of("s3", "jdbc:postgresql://db3:5432/app")));
    assertEquals(12, control.setShardState("s2", ShardState.READ_ONLY));
    assertEquals(13, control.assignBuckets(Map.of(0, "s3", 7, "s3")));

    ShardMap map = control.load();
    assertEquals(13, map.version());
    assertEquals(ShardState.READ_ONLY, map.shard("s2").state());
    assertEquals("s3", map.ownerOf(0));
    assertEquals("s3", map.ownerOf(7));
    assertEquals("s1", map.ownerOf(1));
  }

  @Test
  void copiesOfMovingBucketsAreRecordedFollowTheWriteSwitchAndAreCleared() {
    control.createSchema();
    control.initialize(ShardMap.evenlyAssigned(1, SHARDS, 8));
    assertEquals(2, control.setCopyHolders(Map.of(0, "s2", 1, "s2")));
    ShardMap copying = control.load();
    assertTrue(copying.hasCopies());
    assertEquals("s2", copying.copyHolderOf(0));
    assertEquals(null, copying.copyHolderOf(2));
    assertEquals(java.util.BitSet.valueOf(new long[] {0b11}), copying.bucketsNotReadFrom("s2"),
        "the target's copies are not read while the source serves the reads");
    assertTrue(copying.bucketsNotReadFrom("s1").isEmpty());

    control.switchReads(-1, Map.of(0, "s2", 1, "s2"));
    assertEquals(java.util.BitSet.valueOf(new long[] {0b11}), control.load().bucketsNotReadFrom("s1"),
        "with the reads switched, the source's rows of the buckets are the ones not read");

    control.assignBuckets(Map.of(0, "s2", 1, "s2"));
    ShardMap switched = control.load();
    assertEquals("s2", switched.ownerOf(0));
    assertEquals("s1", switched.copyHolderOf(0), "the write switch leaves the copy on the old owner");
    assertEquals(java.util.BitSet.valueOf(new long[] {0b11}), switched.bucketsNotReadFrom("s1"));

    java.util.Map<Integer, String> clear = new java.util.HashMap<>();
    clear.put(0, null);
    clear.put(1, null);
    control.setCopyHolders(clear);
    assertTrue(!control.load().hasCopies());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> control.setCopyHolders(Map.of(3, "s9")));
    assertTrue(e.getMessage().contains("bucket 3 cannot have a copy on shard 's9'"), e.getMessage());
  }

  @Test
  void invalidChangesAreRejectedWithMessagesThatNameTheCulprits() {
    control.createSchema();
    control.initialize(ShardMap.evenlyAssigned(1, SHARDS, 8));

    IllegalArgumentException buckets = assertThrows(IllegalArgumentException.class,
        () -> control.assignBuckets(Map.of(2, "nowhere", 8, "s1", -1, "s2")));
    assertTrue(buckets.getMessage().contains("bucket 2 cannot go to shard 'nowhere'"), buckets.getMessage());
    assertTrue(buckets.getMessage().contains("bucket 8 does not exist"), buckets.getMessage());
    assertTrue(buckets.getMessage().contains("bucket -1 does not exist"), buckets.getMessage());
    assertTrue(buckets.getMessage().contains("upsertShard"), buckets.getMessage());

    IllegalArgumentException state = assertThrows(IllegalArgumentException.class,
        () -> control.setShardState("s9", ShardState.OFFLINE));
    assertTrue(state.getMessage().contains("No shard 's9'") && state.getMessage().contains("[s1, s2]"),
        state.getMessage());

    assertEquals(1, control.version(), "refused changes leave the version alone");
    assertEquals(ShardMap.evenlyAssigned(1, SHARDS, 8), control.load());
  }

  @Test
  void invalidMapsAreRejectedBeforeTheyReachTheDatabase() {
    IllegalArgumentException unknownOwner = assertThrows(IllegalArgumentException.class,
        () -> new ShardMap(1, SHARDS, new String[] {"s1", "s7"}));
    assertTrue(unknownOwner.getMessage().contains("Bucket 1 is assigned to 's7'"), unknownOwner.getMessage());

    IllegalArgumentException duplicate = assertThrows(IllegalArgumentException.class,
        () -> new ShardMap(1, List.of(SHARDS.get(0), SHARDS.get(0)), new String[] {"s1"}));
    assertTrue(duplicate.getMessage().contains("'s1' appears twice"), duplicate.getMessage());
  }

  @Test
  void operationsOnAMissingSchemaOrMapSayWhatToDo() {
    ControlDatabaseException noSchema = assertThrows(ControlDatabaseException.class, control::load);
    assertTrue(noSchema.getMessage().contains("createSchema()") && noSchema.getMessage().contains(url),
        noSchema.getMessage());

    control.createSchema();
    IllegalStateException noMap = assertThrows(IllegalStateException.class,
        () -> control.setShardState("s1", ShardState.OFFLINE));
    assertTrue(noMap.getMessage().contains("holds no shard map yet") && noMap.getMessage().contains("initialize"),
        noMap.getMessage());

    IllegalArgumentException notPostgres = assertThrows(IllegalArgumentException.class,
        () -> new ControlDatabase("jdbc:mysql://host/db?password=secret", "root", null));
    assertTrue(notPostgres.getMessage().contains("jdbc:mysql://host/db?password=***"), notPostgres.getMessage());
    assertTrue(!notPostgres.getMessage().contains("secret"), "never prints the password: " + notPostgres.getMessage());
  }

  @Test
  void concurrentWritersDoNotLoseUpdates() throws Exception {
    control.createSchema();
    int buckets = 64;
    control.initialize(ShardMap.evenlyAssigned(0, SHARDS, buckets));
    control.upsertShard(ShardDescriptor.of("s3", "jdbc:postgresql://db3:5432/app"));
    long start = control.version();

    int writers = 4;
    CountDownLatch go = new CountDownLatch(1);
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    List<Future<Void>> results = new ArrayList<>();
    try {
      for (int w = 0; w < writers; w++) {
        int writer = w;
        Callable<Void> moves = () -> {
          go.await();
          // each writer moves its own buckets one at a time to s3, interleaved with the other writers
          for (int b = writer; b < buckets; b += writers) {
            control.assignBuckets(Map.of(b, "s3"));
          }
          return null;
        };
        results.add(pool.submit(moves));
      }
      go.countDown();
      for (Future<Void> result : results) {
        result.get();
      }
    } finally {
      pool.shutdownNow();
    }

    ShardMap map = control.load();
    assertEquals(start + buckets, map.version(), "every change got its own version");
    for (int b = 0; b < buckets; b++) {
      assertEquals("s3", map.ownerOf(b), "bucket " + b);
    }
  }

  @Test
  void aChangeComputedFromAnOldVersionIsRefused() {
    control.createSchema();
    control.initialize(ShardMap.evenlyAssigned(5, SHARDS, 8));
    ShardMap seenByA = control.load();
    ShardMap seenByB = control.load();

    assertEquals(6, control.assignBuckets(seenByA.version(), Map.of(0, "s2")));
    ShardMapConflictException conflict = assertThrows(ShardMapConflictException.class,
        () -> control.assignBuckets(seenByB.version(), Map.of(1, "s2")));
    assertEquals(5, conflict.expectedVersion());
    assertEquals(6, conflict.actualVersion());
    assertTrue(conflict.getMessage().contains("Load the map again"), conflict.getMessage());

    ShardMap map = control.load();
    assertEquals("s2", map.ownerOf(0));
    assertEquals("s1", map.ownerOf(1), "the refused change did not happen");
    assertEquals(6, map.version());
  }

  /** Small JDBC helpers for tests that set up and inspect control databases. */
  static final class TestDatabases {
    private TestDatabases() {}

    /** Drops and creates {@code database} on the node; returns its JDBC URL. */
    static String recreate(PostgresNode node, String database) throws SQLException {
      try (Connection c = node.dataSource().getConnection(); Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        s.execute("CREATE DATABASE " + database);
      }
      return node.jdbcUrl(database);
    }

    static void execute(String url, String sql) throws SQLException {
      try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement s = c.createStatement()) {
        s.execute(sql);
      }
    }

    static List<String> strings(String url, String sql) throws SQLException {
      List<String> values = new ArrayList<>();
      try (Connection c = DriverManager.getConnection(url, "postgres", null); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery(sql)) {
        while (rs.next()) {
          values.add(rs.getString(1));
        }
      }
      return values;
    }
  }
}
