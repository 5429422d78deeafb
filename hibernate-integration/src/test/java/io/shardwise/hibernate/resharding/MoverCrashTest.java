package io.shardwise.hibernate.resharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.resharding.internal.CrashPoints;
import io.shardwise.hibernate.shop.Country;
import io.shardwise.hibernate.shop.Merchant;
import io.shardwise.hibernate.shop.PurchaseOrder;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The mover's JVM dies during the copy and during the write switch: cancel or resume leave nothing behind. */
@ShardedPostgres(shards = 2, scope = ShardedPostgres.Scope.RUN)
class MoverCrashTest {
  static final String DB = "crash_app";
  static final String TABLES = "merchant:id:long purchase_order:merchant_id:long order_item:merchant_id:long country";

  PostgresTopology pg;
  SessionFactory sf;
  ShardedSessions shards;
  String s0;
  String s1;
  long movingMerchant;

  @BeforeEach
  void shop(PostgresTopology pg) throws Exception {
    this.pg = pg;
    MoveFixture.freshDatabases(pg, DB);
    sf = MoveFixture.sessionFactory(pg, DB);
    shards = ShardedSessions.of(sf);
    s0 = pg.shard(0).primary().jdbcUrl(DB);
    s1 = pg.shard(1).primary().jdbcUrl(DB);
    shards.referenceTables().inTransaction(s -> s.persist(new Country("DE", "Germany")));
    for (long m = 1; m <= 60; m++) {
      long merchant = m;
      shards.forKey(merchant).inTransaction(s -> {
        s.persist(new Merchant(merchant, "m" + merchant, s.getReference(Country.class, "DE")));
        s.persist(new PurchaseOrder(merchant * 1000, merchant, "first"));
      });
    }
    movingMerchant = 1;
    while (MoveFixture.bucketOf(movingMerchant) > 170) {
      movingMerchant++;
    }
  }

  @AfterEach
  void close() {
    if (sf != null) {
      sf.close();
    }
  }

  /**
   * Runs the mover in a child JVM that halts at {@code crashAt}; returns its exit code. A child still
   * running after 90 s is killed and fails the test ({@link ChildJvm}): it never hangs the build.
   */
  int moverProcess(String crashAt, String... args) throws Exception {
    List<String> arguments = new ArrayList<>(List.of(MoveFixture.controlUrl(pg, DB)));
    arguments.addAll(List.of(args));
    ChildJvm.Result r = ChildJvm.run(Duration.ofSeconds(90), List.of("-D" + CrashPoints.PROPERTY + "=" + crashAt),
        MoverProcess.class.getName(), arguments);
    System.out.println("mover process (" + crashAt + ") exited " + r.exitCode() + ": " + r.output().lines()
        .filter(l -> l.contains("shardwise") || l.contains("workflow")).toList());
    return r.exitCode();
  }

  void assertNothingLeft() throws Exception {
    MoveFixture.assertNothingLeft(s0, s1);
  }

  @Test
  void aMoverKilledDuringTheCopyIsCancelledWithoutAnOrphanSlot() throws Exception {
    assertEquals(86, moverProcess("DURING_COPY", ("start s0 s1 0-170 " + TABLES).split(" ")));
    Resharding moves = shards.resharding();
    ReshardWorkflow w = moves.workflows().get(0);
    ReshardStatus status = moves.status(w.id());
    assertTrue(status.objects().stream().anyMatch(o -> o.kind().equals("subscription") && o.exists()),
        status.describe());
    assertTrue(status.objects().stream().anyMatch(o -> o.kind().equals("slot") && o.exists()), status.describe());
    assertEquals(ReshardPhase.CANCELLED, moves.cancel(w.id()).phase());
    assertNothingLeft();
    ReshardStatus after = moves.status(w.id());
    assertTrue(after.objects().stream().noneMatch(ReshardObject::exists), after.describe());
    assertEquals(0, MoveFixture.count(s1, "SELECT count(*) FROM purchase_order WHERE merchant_id = ?", movingMerchant));
    assertEquals("default", MoveFixture.strings(s0, "SELECT CASE relreplident WHEN 'd' THEN 'default' ELSE "
        + "relreplident::text END FROM pg_class WHERE relname = 'purchase_order'").get(0));
  }

  @Test
  @Tag("long")
  void aMoverKilledDuringTheCopyIsResumedByAnotherProcess() throws Exception {
    assertEquals(86, moverProcess("DURING_COPY", ("start s0 s1 0-170 " + TABLES).split(" ")));
    Resharding moves = shards.resharding();
    String id = moves.workflows().get(0).id();
    assertEquals(ReshardPhase.VERIFIED, moves.resume(id, p -> { }).phase());
    assertTrue(moves.switchWrites(id).switched());
    assertEquals(ReshardPhase.COMPLETED, moves.complete(id, p -> { }).phase());
    assertNothingLeft();
    assertEquals(1, MoveFixture.count(s1, "SELECT count(*) FROM purchase_order WHERE merchant_id = ?", movingMerchant));
    assertEquals(0, MoveFixture.count(s0, "SELECT count(*) FROM purchase_order WHERE merchant_id = ?", movingMerchant));
  }

  @Test
  void aMoverKilledWhileWritesAreFrozenReleasesThemAndTheSwitchIsRedone() throws Exception {
    Resharding moves = shards.resharding();
    ReshardWorkflow w = moves.start(ReshardRequest.move("s0", "s1", BucketRanges.parse("0-170"), List.of()), p -> { });
    assertEquals(86, moverProcess("AFTER_FREEZE", "switch-writes", w.id()));
    assertEquals(ReshardPhase.SWITCHING_WRITES, moves.status(w.id()).workflow().phase());
    long key = movingMerchant;
    // the freeze died with the mover: writes go on at the source
    shards.forKey(key).inTransaction(s -> s.find(PurchaseOrder.class, key * 1000).setCustomer("after the crash"));
    assertEquals("s0", shards.shardFor(key));
    assertEquals(ReshardPhase.VERIFIED, moves.resume(w.id(), p -> { }).phase());
    assertTrue(moves.switchWrites(w.id()).switched());
    assertEquals(ReshardPhase.COMPLETED, moves.complete(w.id(), p -> { }).phase());
    assertNothingLeft();
    assertEquals(List.of("after the crash"), MoveFixture.strings(s1, "SELECT customer FROM purchase_order WHERE id = "
        + key * 1000));
  }

  @Test
  @Tag("long")
  void aMoverKilledAfterTheFlipIsFinishedByResume() throws Exception {
    Resharding moves = shards.resharding();
    ReshardWorkflow w = moves.start(ReshardRequest.move("s0", "s1", BucketRanges.parse("0-170"), List.of()), p -> { });
    assertEquals(86, moverProcess("AFTER_FLIP", "switch-writes", w.id()));
    org.awaitility.Awaitility.await().until(() -> shards.shardFor(movingMerchant).equals("s1"));
    assertEquals(ReshardPhase.WRITES_SWITCHED, moves.resume(w.id(), p -> { }).phase());
    long key = movingMerchant;
    shards.forKey(key).inTransaction(s -> s.find(PurchaseOrder.class, key * 1000).setCustomer("on the target"));
    assertEquals(ReshardPhase.COMPLETED, moves.complete(w.id(), p -> { }).phase());
    assertNothingLeft();
    assertEquals(List.of("on the target"), MoveFixture.strings(s1, "SELECT customer FROM purchase_order WHERE id = "
        + key * 1000));
  }

  @Test
  @Tag("long")
  void aMoverKilledDuringTheReverseSetUpIsCancelledWithoutAnOrphanSlot() throws Exception {
    Resharding moves = shards.resharding();
    ReshardWorkflow w = moves.start(ReshardRequest.move("s0", "s1", BucketRanges.parse("0-170"), List.of()), p -> { });
    assertEquals(86, moverProcess("DURING_REVERSE_SETUP", "switch-writes", w.id()));
    assertEquals(ReshardPhase.VERIFIED, moves.status(w.id()).workflow().phase(), "writes were never frozen");
    assertEquals(List.of("shardwise_rsub_" + w.id()), MoveFixture.strings(s1, "SELECT slot_name FROM pg_replication_slots"));
    ReshardStatus status = moves.status(w.id());
    assertTrue(status.objects().stream().anyMatch(o -> o.kind().equals("slot") && o.shard().equals("s1") && o.exists()),
        status.describe());
    assertEquals(ReshardPhase.CANCELLED, moves.cancel(w.id()).phase());
    assertNothingLeft();
  }

  @Test
  void aMoverKilledWhileTheTargetIsFrozenForARollbackLeavesWritesOnTheTarget() throws Exception {
    Resharding moves = shards.resharding();
    ReshardWorkflow w = moves.start(ReshardRequest.move("s0", "s1", BucketRanges.parse("0-170"), List.of()), p -> { });
    assertTrue(moves.switchWrites(w.id()).switched());
    assertEquals(86, moverProcess("AFTER_REVERSE_FREEZE", "rollback", w.id()));
    String staged = "SELECT gid FROM pg_prepared_xacts WHERE database = current_database()";
    String control = MoveFixture.controlUrl(pg, DB);
    assertEquals(List.of("shardwise-switch-" + w.id()), MoveFixture.strings(control, staged),
        "the map change back was staged before the freeze, and the dead mover left it prepared");
    assertEquals(ReshardPhase.ROLLING_BACK_WRITES, moves.status(w.id()).workflow().phase());
    assertEquals(List.of(), MoveFixture.strings(control, staged), "status rolled the dead mover's staged change back");
    long key = movingMerchant;
    org.awaitility.Awaitility.await().until(() -> shards.shardFor(key).equals("s1"));
    // the freeze died with the mover: writes go on at the target, and reach the source by reverse replication
    shards.forKey(key).inTransaction(s -> s.find(PurchaseOrder.class, key * 1000).setCustomer("after the crash"));
    assertEquals(ReshardPhase.WRITES_SWITCHED, moves.resume(w.id(), p -> { }).phase());
    assertEquals(List.of(), MoveFixture.strings(control, staged));
    assertEquals(ReshardPhase.CANCELLED, moves.cancel(w.id()).phase(), "cancel rolls the writes back first");
    assertNothingLeft();
    assertEquals(List.of("after the crash"), MoveFixture.strings(s0, "SELECT customer FROM purchase_order WHERE id = "
        + key * 1000));
    assertEquals(0, MoveFixture.count(s1, "SELECT count(*) FROM purchase_order WHERE merchant_id = ?", key));
  }

  @Test
  @Tag("long")
  void aMoverKilledAfterTheFlipBackIsFinishedByResume() throws Exception {
    Resharding moves = shards.resharding();
    ReshardWorkflow w = moves.start(ReshardRequest.move("s0", "s1", BucketRanges.parse("0-170"), List.of()), p -> { });
    assertTrue(moves.switchWrites(w.id()).switched());
    long key = movingMerchant;
    org.awaitility.Awaitility.await().until(() -> shards.shardFor(key).equals("s1"));
    shards.forKey(key).inTransaction(s -> s.find(PurchaseOrder.class, key * 1000).setCustomer("on the target"));
    assertEquals(86, moverProcess("AFTER_REVERSE_FLIP", "rollback", w.id()));
    org.awaitility.Awaitility.await().until(() -> shards.shardFor(key).equals("s0"));
    assertEquals(ReshardPhase.VERIFIED, moves.resume(w.id(), p -> { }).phase());
    assertEquals(List.of(), MoveFixture.strings(s0, "SELECT subname FROM pg_subscription"), "reverse path dropped");
    shards.forKey(key).inTransaction(s -> s.find(PurchaseOrder.class, key * 1000).setCustomer("back on the source"));
    assertTrue(moves.switchWrites(w.id()).switched());
    assertEquals(ReshardPhase.COMPLETED, moves.complete(w.id(), p -> { }).phase());
    assertNothingLeft();
    assertEquals(List.of("back on the source"), MoveFixture.strings(s1, "SELECT customer FROM purchase_order WHERE id = "
        + key * 1000));
  }
}
