package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.harness.Layout;
import io.shardwise.hibernate.harness.ShardedUnit;
import io.shardwise.hibernate.readwrite.ConsistencyScope;
import io.shardwise.hibernate.readwrite.RowLockInReadOnlySessionException;
import io.shardwise.hibernate.rw.Product;
import io.shardwise.hibernate.rw.Profile;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import jakarta.persistence.LockModeType;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Read/write splitting on every {@link Layout}: each shard of the layout has one streaming replica;
 * writes reach the primary of the key's shard, read-only sessions that shard's replica (each server
 * named by {@code inet_server_port()}), a scope reads its own writes, and no row lock reaches a
 * replica. The lag, health and token behaviour is {@link ReadWriteSplittingTest}'s, on two shards.
 */
@ShardedPostgres(shards = Layout.MAX_SHARDS, replicas = 1)
@ParameterizedClass(name = "{0}")
@MethodSource("io.shardwise.hibernate.harness.Layout#all")
class ReadWriteMatrixTest {
  private static final List<ShardedUnit.Placement> PLACEMENTS = List.of(new ShardedUnit.Placement("profile", "userid"),
      new ShardedUnit.Placement("product", "sku"));
  private static ShardedUnit unit;
  private static ShardedSessions shards;
  private final Layout layout;

  ReadWriteMatrixTest(Layout layout) {
    this.layout = layout;
  }

  @BeforeParameterizedClassInvocation
  static void start(Layout layout, PostgresTopology pg) {
    unit = ShardedUnit.on(pg, layout).withReplicas().entities(Profile.class, Product.class).placements(PLACEMENTS)
        .configure(b -> b.property(ShardwiseSettings.RYW_SECRET, "0123456789abcdef0123456789abcdef-test-only"))
        .start();
    shards = unit.shards();
  }

  @AfterParameterizedClassInvocation
  static void stop() {
    try {
      unit.close();
    } finally {
      unit = null;
    }
  }

  @BeforeEach
  void emptyTables() throws SQLException {
    unit.reset();
  }

  @AfterEach
  void everyRowOnItsShardAndNoConnectionLeaked() throws SQLException {
    unit.assertInvariants();
  }

  @Test
  void writesReachTheKeysPrimaryAndReadOnlySessionsItsReplica(PostgresTopology pg) {
    for (String shardId : layout.shardIds()) {
      long user = unit.keyOn(shardId);
      int index = Layout.indexOf(shardId);
      int written = shards.forKey(user).fromTransaction(s -> {
        s.persist(new Profile(user, "on " + shardId));
        return serverPort(s);
      });
      assertEquals(pg.shard(index).primary().port(), written, "user " + user + " is written on the primary of " + shardId);
    }
    pg.awaitReplicasCaughtUp(Duration.ofSeconds(30));
    for (String shardId : layout.shardIds()) {
      long user = unit.keyOn(shardId);
      int index = Layout.indexOf(shardId);
      long[] before = shards.readCounts();
      int read = shards.forKey(user).readOnly().fromSession(s -> {
        assertEquals("on " + shardId, s.find(Profile.class, user).getName());
        return serverPort(s);
      });
      assertEquals(pg.shard(index).replica(0).port(), read, "user " + user + " is read from the replica of " + shardId);
      assertTrue(shards.readCounts()[0] > before[0], "the read is counted as a replica read");
    }
  }

  @Test
  void aScopeReadsItsOwnWritesOnEveryShard() {
    for (String shardId : layout.shardIds()) {
      long user = unit.keyOn(shardId);
      ConsistencyScope scope = shards.consistency().scope("user:" + user);
      shards.forKey(user).within(scope).inTransaction(s -> s.persist(new Profile(user, "v0")));
      for (int i = 1; i <= 3; i++) {
        String name = "v" + i;
        shards.forKey(user).within(scope).inTransaction(s -> s.find(Profile.class, user).setName(name));
        assertEquals(name, shards.forKey(user).within(scope).readOnly()
            .fromSession(s -> s.find(Profile.class, user).getName()), "user " + user + " on " + shardId);
      }
    }
  }

  @Test
  void aRowLockInAReadOnlySessionIsRefusedOnEveryShard() {
    for (String shardId : layout.shardIds()) {
      long sku = unit.keyOn(shardId);
      shards.forKey(sku).inTransaction(s -> s.persist(new Product(sku, 3)));
      Exception e = assertThrows(Exception.class, () -> shards.forKey(sku).readOnly()
          .fromTransaction(s -> s.find(Product.class, sku, LockModeType.PESSIMISTIC_WRITE)));
      Throwable cause = e;
      while (!(cause instanceof RowLockInReadOnlySessionException) && cause.getCause() != null) {
        cause = cause.getCause();
      }
      assertTrue(cause instanceof RowLockInReadOnlySessionException, () -> "expected a refused lock, got " + e);
      assertEquals(3, (int) shards.forKey(sku).fromSession(s -> s.find(Product.class, sku).getStock()),
          "the read-write session still reads the row on " + shardId);
    }
  }

  private static int serverPort(org.hibernate.Session session) {
    return session.createNativeQuery("select inet_server_port()", Integer.class).getSingleResult();
  }
}
