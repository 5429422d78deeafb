package io.shardwise.hibernate.resharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.util.List;
import org.awaitility.Awaitility;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Rollback after the write switch, under a continuous load: reverse replication returns every write
 * the target accepted to the source, and the rollback hands the buckets back with nothing lost.
 */
@ShardedPostgres(shards = 2, scope = ShardedPostgres.Scope.RUN)
class ReverseRollbackTest {
  static final String DB = "reverse_app";
  static final int MERCHANTS = 120;

  PostgresTopology pg;
  SessionFactory sf;
  ShardedSessions shards;
  String s0;
  String s1;

  @BeforeEach
  void shop(PostgresTopology pg) throws Exception {
    this.pg = pg;
    MoveFixture.freshDatabases(pg, DB);
    sf = MoveFixture.sessionFactory(pg, DB);
    shards = ShardedSessions.of(sf);
    s0 = pg.shard(0).primary().jdbcUrl(DB);
    s1 = pg.shard(1).primary().jdbcUrl(DB);
    shards.referenceTables().inTransaction(s -> s.persist(new Country("DE", "Germany")));
    for (long m = 1; m <= MERCHANTS; m++) {
      long merchant = m;
      shards.forKey(merchant).inTransaction(s -> {
        s.persist(new Merchant(merchant, "merchant " + merchant, s.getReference(Country.class, "DE")));
        for (int o = 0; o < 5; o++) {
          s.persist(new PurchaseOrder(merchant * 1000 + o, merchant, "customer " + o));
        }
      });
    }
  }

  @AfterEach
  void close() {
    if (sf != null) {
      sf.close();
    }
  }

  static boolean moves(long merchant) {
    return MoveFixture.bucketOf(merchant) <= 170;
  }

  static long firstMovingMerchant() {
    long key = 1;
    while (!moves(key)) {
      key++;
    }
    return key;
  }

  /** Slots (server-wide), publications and subscriptions (in the test's database) on both shards. */
  List<String> replicationObjects() throws Exception {
    List<String> out = new java.util.ArrayList<>();
    for (String url : List.of(s0, s1)) {
      out.addAll(MoveFixture.strings(url, "SELECT 'slot ' || slot_name FROM pg_replication_slots"));
      out.addAll(MoveFixture.strings(url, "SELECT 'publication ' || pubname FROM pg_publication"));
      out.addAll(MoveFixture.strings(url, "SELECT 'subscription ' || subname FROM pg_subscription"));
    }
    return out;
  }

  @Test
  void rollsBackTheWriteSwitchUnderLoadAndLosesNothing() throws Exception {
    Resharding moves = shards.resharding();
    long movingKey = firstMovingMerchant();
    int port0 = pg.shard(0).primary().port();
    int port1 = pg.shard(1).primary().port();
    LedgerWriter writer = new LedgerWriter(shards, MERCHANTS);
    String id;
    long onTarget;
    try (writer) {
      ReshardWorkflow w = moves.start(ReshardRequest.move("s0", "s1", OnlineMoveTest.moving(), List.of()), p -> { });
      id = w.id();
      assertEquals(ReshardPhase.VERIFIED, w.phase(), w.lastError());
      moves.switchReads(id);
      SwitchResult switched = moves.switchWrites(id);
      assertTrue(switched.switched(), switched.describe());
      long flippedAt = writer.writes.get();
      // the way back exists: a publication on the target, a subscription on the source, its slot on the target
      assertEquals(List.of("shardwise_rpub_" + id), MoveFixture.strings(s1, "SELECT pubname FROM pg_publication"));
      assertEquals(List.of("shardwise_rsub_" + id), MoveFixture.strings(s0, "SELECT subname FROM pg_subscription"));
      assertEquals(List.of("shardwise_rsub_" + id), MoveFixture.strings(s1,
          "SELECT slot_name FROM pg_replication_slots"));
      ReshardStatus status = moves.status(id);
      assertTrue(status.objects().stream().anyMatch(o -> o.kind().equals("slot") && o.shard().equals("s1")
          && o.exists()), status.describe());
      assertEquals(List.of(), status.orphanSlots(), status.describe());

      Awaitility.await().until(() -> shards.shardFor(movingKey).equals("s1"));
      assertEquals(port1, MoveFixture.serverPort(shards, movingKey, false), "writes go to the target");
      Awaitility.await().atMost(java.time.Duration.ofSeconds(60))
          .until(() -> writer.writtenAfterWhileAlive(flippedAt + 20, ReverseRollbackTest::moves) > 30);
      onTarget = writer.writtenAfter(flippedAt + 20, ReverseRollbackTest::moves);

      ReshardWorkflow back = moves.rollback(id);
      assertEquals(ReshardPhase.VERIFIED, back.phase(), back.lastError());
      Awaitility.await().until(() -> shards.shardFor(movingKey).equals("s0"));
      assertEquals(port0, MoveFixture.serverPort(shards, movingKey, false), "writes are back on the source");
      assertEquals(port0, MoveFixture.serverPort(shards, movingKey, true), "and so are the reads");
      assertFalse(replicationObjects().stream().anyMatch(o -> o.contains("rpub") || o.contains("rsub")),
          "the reverse path is gone: " + replicationObjects());
      long rolledBackAt = writer.writes.get();
      Awaitility.await().atMost(java.time.Duration.ofSeconds(60))
          .until(() -> writer.writtenAfterWhileAlive(rolledBackAt + 20, ReverseRollbackTest::moves) > 30);
    }
    assertEquals(List.of(), writer.errors);
    assertTrue(onTarget > 0, "the test wrote moving orders on the target after the flip");
    // the forward subscription still keeps the target's copy equal: the move could be switched again
    assertTrue(moves.verify(id, p -> { }).equal(), "source and target equal after the rollback");
    assertEquals(ReshardPhase.CANCELLED, moves.cancel(id).phase());

    // every acknowledged order exactly once, on the shard its key routes to (the source again), as last written
    for (long m = 1; m <= MERCHANTS; m++) {
      assertEquals(MoveFixture.bucketOf(m) >= 512 ? "s1" : "s0", shards.shardFor(m), "merchant " + m);
    }
    writer.assertEveryWriteOnItsOwner(s0, s1, m -> MoveFixture.bucketOf(m) >= 512);
    assertEquals(List.of(), replicationObjects(), "no slot, publication or subscription left on any shard");
    assertEquals(0, MoveFixture.count(s0, "SELECT count(*) FROM pg_trigger WHERE tgname = 'shardwise_fence'"));
    assertEquals(0, MoveFixture.count(s1, "SELECT count(*) FROM pg_trigger WHERE tgname = 'shardwise_fence'"));
    System.out.println("rollback after switch-writes: " + writer.writes.get() + " acknowledged writes, " + onTarget
        + " moving orders last written on the target before the rollback, " + writer.fenced.get() + " fenced and retried");
  }

  @Test
  void completeAfterARolledBackSwitchDropsTheReversePathToo() throws Exception {
    Resharding moves = shards.resharding();
    long movingKey = firstMovingMerchant();
    ReshardWorkflow w = moves.start(ReshardRequest.move("s0", "s1", OnlineMoveTest.moving(), List.of()), p -> { });
    assertTrue(moves.switchWrites(w.id()).switched());
    Awaitility.await().until(() -> shards.shardFor(movingKey).equals("s1"));
    shards.forKey(movingKey).inTransaction(s -> s.find(PurchaseOrder.class, movingKey * 1000).setCustomer("on s1"));
    SwitchResult back = moves.rollbackWrites(w.id());
    assertTrue(back.switched(), back.describeRollback());
    assertEquals(List.of("on s1"), MoveFixture.strings(s0, "SELECT customer FROM purchase_order WHERE id = "
        + movingKey * 1000));
    Awaitility.await().until(() -> shards.shardFor(movingKey).equals("s0"));
    shards.forKey(movingKey).inTransaction(s -> s.find(PurchaseOrder.class, movingKey * 1000).setCustomer("on s0"));
    assertTrue(moves.switchWrites(w.id()).switched(), "the move can be switched again");
    assertEquals(ReshardPhase.COMPLETED, moves.complete(w.id(), p -> { }).phase());
    assertEquals(List.of("on s0"), MoveFixture.strings(s1, "SELECT customer FROM purchase_order WHERE id = "
        + movingKey * 1000));
    assertEquals(0, MoveFixture.count(s0, "SELECT count(*) FROM purchase_order WHERE merchant_id = ?", movingKey));
    assertEquals(List.of(), replicationObjects(), "complete drops the reverse path with the forward one");
    ReshardStatus after = moves.status(w.id());
    assertTrue(after.objects().stream().noneMatch(ReshardObject::exists), after.describe());
  }

  @Test
  @Tag("long")
  void aRollbackThatCannotFinishWithinThePauseLimitIsAbandonedAndWritesGoOnAtTheTarget() throws Exception {
    Resharding moves = shards.resharding();
    long key = firstMovingMerchant();
    ReshardWorkflow w = moves.start(ReshardRequest.move("s0", "s1", OnlineMoveTest.moving(), List.of()), p -> { });
    assertTrue(moves.switchWrites(w.id()).switched());
    Awaitility.await().until(() -> shards.shardFor(key).equals("s1"));

    // the source stops applying the target's changes: the reverse catch-up cannot finish
    MoveFixture.execute(s0, "ALTER SUBSCRIPTION shardwise_rsub_" + w.id() + " DISABLE");
    SwitchResult slow = moves.rollbackWrites(w.id());
    assertFalse(slow.switched(), slow.describeRollback());
    assertTrue(slow.reason().contains("reverse replication too slow"), slow.describeRollback());
    System.out.println("abandoned rollback: " + slow.describeRollback());
    assertEquals(ReshardPhase.WRITES_SWITCHED, moves.status(w.id()).workflow().phase());
    assertEquals("s1", shards.shardFor(key));
    shards.forKey(key).inTransaction(s -> s.find(PurchaseOrder.class, key * 1000).setCustomer("after the abandon"));
    ReshardingException refused = assertThrows(ReshardingException.class, () -> moves.rollback(w.id()));
    assertTrue(refused.getMessage().contains("run rollback again"), refused.getMessage());

    // an in-flight transaction on the target holding a moving bucket past the limit: the drain gives up
    MoveFixture.execute(s0, "ALTER SUBSCRIPTION shardwise_rsub_" + w.id() + " ENABLE");
    org.hibernate.Session open = shards.forKey(key).openSession();
    try {
      open.beginTransaction();
      open.find(PurchaseOrder.class, key * 1000 + 1).setCustomer("held open on the target");
      open.flush();
      SwitchResult held = moves.rollbackWrites(w.id());
      assertFalse(held.switched(), held.describeRollback());
      assertTrue(held.reason().contains("in-flight"), held.describeRollback());
      open.getTransaction().commit();
    } finally {
      open.close();
    }
    SwitchResult back = moves.rollbackWrites(w.id());
    assertTrue(back.switched(), back.describeRollback());
    assertEquals(List.of("after the abandon", "held open on the target"), MoveFixture.strings(s0,
        "SELECT customer FROM purchase_order WHERE id IN (" + key * 1000 + ", " + (key * 1000 + 1) + ") ORDER BY id"));
    assertEquals(ReshardPhase.CANCELLED, moves.cancel(w.id()).phase());
    assertEquals(List.of(), replicationObjects());
  }
}
