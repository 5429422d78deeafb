package io.shardwise.hibernate.resharding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.Shardwise;
import io.shardwise.hibernate.resharding.internal.CrashPoints;
import io.shardwise.hibernate.routing.ControlDatabase;
import io.shardwise.hibernate.routing.ControlDatabaseException;
import io.shardwise.testkit.PostgresTopology;
import io.shardwise.testkit.junit.ShardedPostgres;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.hibernate.SessionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The mover's JVM is killed with {@code kill -9} at a phase of a move, inside the write freeze
 * included; then every operator command (opened afresh, as the command line does) answers within
 * 10 s by the test's clock: none waits behind what the dead mover left (its staged map change,
 * prepared in the control database, holds the map's rows).
 */
@ShardedPostgres(shards = 2, scope = ShardedPostgres.Scope.RUN)
class OperatorAfterKillTest {
  static final String DB = "kill_app";
  static final Duration BOUND = Duration.ofSeconds(10);
  /**
   * The bound of a command that, besides settling what the dead mover left, does the move's own work
   * (the rest of a copy and its verification, or rolling the writes back before a cancel): a time
   * proportional to the data and the machine's load, not a wait.
   */
  static final Duration WORKING_BOUND = Duration.ofSeconds(30);

  PostgresTopology pg;
  SessionFactory sf;
  ShardedSessions shards;

  @BeforeEach
  void shopOfSixtyMerchants(PostgresTopology topology) throws Exception {
    pg = topology;
    MoveFixture.freshDatabases(pg, DB);
    sf = MoveFixture.sessionFactory(pg, DB);
    shards = ShardedSessions.of(sf);
    MoveFixture.seedMerchants(shards, 60);
  }

  String control() {
    return MoveFixture.controlUrl(pg, DB);
  }

  void assertNothingLeft() throws Exception {
    MoveFixture.assertNothingLeft(pg.shard(0).primary().jdbcUrl(DB), pg.shard(1).primary().jdbcUrl(DB));
  }

  @AfterEach
  void close() {
    if (sf != null) {
      sf.close();
    }
  }

  /** A fresh handle, like each run of {@code shardwise reshard ...}. */
  Resharding operator() {
    return Shardwise.resharding(MoveFixture.settings(pg, DB));
  }

  /**
   * Runs the mover in a child JVM until it reaches {@code point}, where it waits, then kills it with
   * SIGKILL: no shutdown hook, no cleanup, its connections closed by the kernel.
   */
  void killMoverAt(CrashPoints.Point point, String... args) throws Exception {
    List<String> arguments = new ArrayList<>(List.of(control()));
    arguments.addAll(List.of(args));
    try (ChildJvm.Running mover = ChildJvm.start(List.of("-D" + CrashPoints.PAUSE_PROPERTY + "=" + point),
        MoverProcess.class.getName(), arguments)) {
      mover.awaitOutput(CrashPoints.PAUSED + point, Duration.ofSeconds(120));
      mover.kill9();
    }
  }

  /** Runs {@code command} on a thread of its own and fails the test if it has not answered within {@link #BOUND}. */
  static <T> T withinBound(String what, Callable<T> command) throws Exception {
    return withinBound(what, BOUND, command);
  }

  static <T> T withinBound(String what, Duration bound, Callable<T> command) throws Exception {
    ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "operator-command");
      t.setDaemon(true);   // a command that hangs must not keep the test JVM alive
      return t;
    });
    long t0 = System.nanoTime();
    Future<T> result = thread.submit(command);
    try {
      T value = result.get(bound.toMillis(), TimeUnit.MILLISECONDS);
      System.out.printf("operator command after kill -9: %-40s %6d ms%n", what, (System.nanoTime() - t0) / 1_000_000);
      return value;
    } catch (TimeoutException e) {
      throw new AssertionError(what + " did not answer within " + bound.toSeconds() + " s after the mover was killed");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    } finally {
      thread.shutdownNow();
    }
  }

  List<String> prepared() throws Exception {
    return MoveFixture.strings(control(), "SELECT gid FROM pg_prepared_xacts WHERE database = current_database()");
  }

  @Test
  void killedInsideTheWriteFreezeEveryCommandAnswersAndTheStagedChangeIsRolledBack() throws Exception {
    ReshardWorkflow w = shards.resharding().start(ReshardRequest.move("s0", "s1", BucketRanges.parse("0-170"),
        List.of()), p -> { });
    killMoverAt(CrashPoints.Point.AFTER_FREEZE, "switch-writes", w.id());
    String gid = "shardwise-switch-" + w.id();
    assertEquals(List.of(gid), prepared(), "the dead mover left its staged map change prepared");

    // a change of the map waits at most its lock timeout, and says what holds the lock and what to do
    ControlDatabase map = new ControlDatabase(control(), "postgres", null).withTimeouts(300, 5_000);
    ControlDatabaseException refused = assertThrows(ControlDatabaseException.class, () -> withinBound(
        "a shard map change (lock timeout 300 ms)", () -> map.switchReads(-1, Map.of(0, "s0"))));
    assertTrue(refused.getMessage().contains("prepared transaction '" + gid + "'"), refused.getMessage());
    assertTrue(refused.getMessage().contains("shardwise reshard resume " + w.id()), refused.getMessage());

    ReshardStatus status = withinBound("status (freeze)", () -> operator().status(w.id()));
    assertEquals(ReshardPhase.SWITCHING_WRITES, status.workflow().phase());
    assertEquals(List.of(), prepared(), "status rolled the dead mover's staged change back");
    assertEquals(ReshardPhase.VERIFIED, withinBound("resume (freeze), via ShardedSessions",
        () -> shards.resharding().resume(w.id(), p -> { })).phase());
    assertEquals("s0", shards.shardFor(1L), "the switch never committed: the source keeps its buckets");
    assertEquals(ReshardPhase.CANCELLED, withinBound("cancel (freeze)", () -> operator().cancel(w.id())).phase());
    assertNothingLeft();
  }

  @Test
  @Tag("long")
  void killedInsideTheRollbackFreezeEveryCommandAnswersAndTheWritesComeBack() throws Exception {
    Resharding moves = shards.resharding();
    ReshardWorkflow w = moves.start(ReshardRequest.move("s0", "s1", BucketRanges.parse("0-170"), List.of()), p -> { });
    assertTrue(moves.switchWrites(w.id()).switched());
    killMoverAt(CrashPoints.Point.AFTER_REVERSE_FREEZE, "rollback", w.id());
    assertEquals(List.of("shardwise-switch-" + w.id()), prepared());

    assertEquals(ReshardPhase.ROLLING_BACK_WRITES, withinBound("status (rollback freeze)",
        () -> operator().status(w.id())).workflow().phase());
    assertEquals(List.of(), prepared());
    assertEquals(ReshardPhase.VERIFIED, withinBound("rollback (rollback freeze)", () -> operator().rollback(w.id()))
        .phase(), "the interrupted rollback is settled and made again");
    assertEquals(ReshardPhase.CANCELLED, withinBound("cancel (rollback freeze)", () -> operator().cancel(w.id()))
        .phase());
    assertNothingLeft();
  }

  @Test
  @Tag("long")
  void killedDuringTheCopyEveryCommandAnswers() throws Exception {
    killMoverAt(CrashPoints.Point.DURING_COPY, ("start s0 s1 0-170 " + MoverCrashTest.TABLES).split(" "));
    String id = withinBound("status (list, copy)", () -> operator().workflows()).get(0).id();
    // the mover died after creating the subscription, before it recorded the phase COPYING
    assertEquals(ReshardPhase.CREATED, withinBound("status (copy)", () -> operator().status(id)).workflow().phase());
    assertEquals(ReshardPhase.VERIFIED, withinBound("resume (copy)", WORKING_BOUND,
        () -> operator().resume(id, p -> { })).phase());
    assertEquals(ReshardPhase.CANCELLED, withinBound("cancel (copy)", () -> operator().cancel(id)).phase());
    assertNothingLeft();
  }

  @Test
  void killedAfterTheFlipEveryCommandAnswersAndResumeFinishesTheSwitch() throws Exception {
    ReshardWorkflow w = shards.resharding().start(ReshardRequest.move("s0", "s1", BucketRanges.parse("0-170"),
        List.of()), p -> { });
    killMoverAt(CrashPoints.Point.AFTER_FLIP, "switch-writes", w.id());
    assertEquals(List.of(), prepared(), "the staged change was committed before the kill");
    assertEquals(ReshardPhase.SWITCHING_WRITES, withinBound("status (after flip)", () -> operator().status(w.id()))
        .workflow().phase());
    assertEquals(ReshardPhase.WRITES_SWITCHED, withinBound("resume (after flip)",
        () -> operator().resume(w.id(), p -> { })).phase());
    assertEquals(ReshardPhase.CANCELLED, withinBound("cancel (after flip)", WORKING_BOUND,
        () -> operator().cancel(w.id())).phase(),
        "cancel rolls the writes back first");
    assertNothingLeft();
  }
}
