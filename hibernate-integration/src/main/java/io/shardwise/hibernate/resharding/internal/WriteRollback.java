package io.shardwise.hibernate.resharding.internal;

import io.shardwise.hibernate.resharding.ReshardPhase;
import io.shardwise.hibernate.resharding.ReshardWorkflow;
import io.shardwise.hibernate.resharding.ReshardingException;
import io.shardwise.hibernate.resharding.SwitchResult;
import io.shardwise.hibernate.routing.ControlDatabase;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardMapConflictException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;

/**
 * The rollback of the write switch ({@code WRITES_SWITCHED} back to {@code VERIFIED}): the same freeze
 * in reverse over the reverse subscription, bounded by the pause limit, and the recovery of a rollback
 * whose mover died. The reverse path it uses is set up by {@link WriteSwitch}.
 */
final class WriteRollback extends MoveSteps {
  WriteRollback(MoveSteps shared) {
    super(shared);
  }

  SwitchResult rollbackWrites(String id) {
    ReshardWorkflow w = settleStaged(id);
    if (w.phase() == ReshardPhase.ROLLING_BACK_WRITES) {
      try {
        recoverRollback(w);
      } catch (SQLException e) {
        throw failure("settle the interrupted rollback of move " + id, null, e);
      }
      w = store.load(id);
      if (w.phase() == ReshardPhase.VERIFIED) {
        return new SwitchResult(true, 0, 0, 0, control.load().version(), null);
      }
    }
    requirePhase(w, "roll back the writes of", ReshardPhase.WRITES_SWITCHED);
    ShardMap map = control.load();
    try (Connection source = connect(map, w.source(), null, id + "-rollback");
        Connection target = connect(map, w.target(), null, id + "-rollback")) {
      if (!Sql.exists(source, "SELECT 1 FROM pg_subscription WHERE subname = ?", reverseSubscription(w))) {
        throw new ReshardingException("Move " + id + " has no reverse subscription " + reverseSubscription(w) + " on '"
            + w.source() + "' (switched by an older version?): the writes made on '" + w.target() + "' since the switch"
            + " cannot be returned. Complete the move, or move the buckets back with a new move.");
      }
      store.setPhase(id, ReshardPhase.ROLLING_BACK_WRITES);
      try (Connection controlConnection = control.openConnection(switchConnectionName(id, "rollback"))) {
        warmFreezeStatements(id, source, target, controlConnection);
        // as in the switch, the map change is validated and staged before the freeze
        ReshardWorkflow moving = w;
        Map<Integer, String> owners = new TreeMap<>();
        moving.buckets().forEach(b -> owners.put(b, moving.source()));
        String token = control.announceStaged(map.version(), owners);   // the routers warm the source back up
        long announced = System.nanoTime();
        control.abortStaged(stagedName(moving));
        ControlDatabase.StagedAssignment assignment;
        long staging = System.nanoTime();
        try {
          assignment = control.stageAssignment(controlConnection, map.version(), owners, stagedName(moving), token);
        } catch (ShardMapConflictException | io.shardwise.hibernate.routing.ControlDatabaseException e) {
          return abandonRollback(moving, staging, 0, 0, "the shard map change could not be staged (writes were not"
              + " paused): " + e.getMessage());
        }
        awaitStagedLead(announced);
        try {
          return freezeAndFlipBack(moving, map, source, target, assignment);
        } finally {
          assignment.abort();   // after the freeze: a no-op once committed
        }
      }
    } catch (SQLException e) {
      throw failure("roll back the writes of move " + id, null, e);
    }
  }

  /**
   * The write switch in reverse: drain the target's writers of the moving buckets under the move's
   * lock (taken on the target), a marker from the target, wait until the source applied it, then
   * fence the target, open the source and commit the staged map change that gives the buckets back.
   * Bounded by the pause limit like the switch, the map change included; abandoned, the writes go
   * on at the target.
   */
  SwitchResult freezeAndFlipBack(ReshardWorkflow w, ShardMap map, Connection source, Connection target,
      ControlDatabase.StagedAssignment assignment) throws SQLException {
    long t0 = System.nanoTime();
    long deadline = t0 + settings.pauseLimitMs() * 1_000_000;
    if (!lockWithinPauseLimit(target, w)) {
      return abandonRollback(w, t0, 0, 0, "in-flight transactions on the moving buckets did not finish within "
          + settings.pauseLimitMs() + " ms");
    }
    long drained = System.nanoTime();
    boolean released = false;
    try {
      long seq = Fences.writeMarker(target, w.id(), w.target());
      boolean caughtUp = awaitMarker(w, source, w.target(), seq, deadline);
      long applied = System.nanoTime();
      if (!caughtUp) {
        unlock(target, w);
        released = true;
        return abandonRollback(w, t0, drained - t0, applied - drained, "the source did not apply the target's last"
            + " change within " + settings.pauseLimitMs() + " ms (reverse replication too slow)");
      }
      CrashPoints.at(CrashPoints.Point.AFTER_REVERSE_FREEZE);
      long next = map.version() + 1;
      // fence the target first: a crash between the two leaves both fenced (refused, retried), never both open
      Fences.set(target, w.id(), w.buckets(), "fenced", w.source(), next, w.lockKey());
      Fences.set(source, w.id(), w.buckets(), "open", w.source(), next, w.lockKey());
      long leftMillis = (deadline - System.nanoTime()) / 1_000_000;
      long version = -1;
      String failure = null;
      if (leftMillis < 1) {
        failure = "the pause limit of " + settings.pauseLimitMs() + " ms was used up before the shard map could be"
            + " changed";
      } else {
        try {
          version = assignment.commit(leftMillis);
        } catch (ShardMapConflictException e) {
          failure = "the shard map could not be changed: " + e.getMessage();
        } catch (io.shardwise.hibernate.routing.ControlDatabaseException e) {
          version = flippedVersion(w, e, w.source());
          if (version < 0) {
            failure = "the shard map could not be changed within the pause limit of " + settings.pauseLimitMs()
                + " ms: " + e.getMessage();
          }
        }
      }
      if (version < 0) {
        Fences.set(source, w.id(), w.buckets(), "fenced", w.target(), map.version(), w.lockKey());
        Fences.set(target, w.id(), w.buckets(), "open", w.target(), map.version(), w.lockKey());
        unlock(target, w);
        released = true;
        return abandonRollback(w, t0, drained - t0, applied - drained, failure);
      }
      CrashPoints.at(CrashPoints.Point.AFTER_REVERSE_FLIP);
      assignment.announce();   // as in the switch: the routers have the map before the writers are released
      unlock(target, w);
      released = true;
      long end = System.nanoTime();
      finishRollback(w, source, target);
      SwitchResult result = new SwitchResult(true, (end - t0) / 1e6, (drained - t0) / 1e6, (applied - drained) / 1e6,
          version, null);
      LOG.log(System.Logger.Level.INFO, "move " + w.id() + ": " + result.describeRollback());
      return result;
    } finally {
      if (!released) {
        unlockQuietly(target, w);
      }
    }
  }

  /** Takes the move's advisory lock exclusively on {@code c} (the drain); false if that takes longer than the pause limit. */
  boolean lockWithinPauseLimit(Connection c, ReshardWorkflow w) throws SQLException {
    Sql.execute(c, "SET lock_timeout = '" + settings.pauseLimitMs() + "ms'");
    try {
      Sql.queryText(c, "SELECT pg_advisory_lock(?)", w.lockKey());
      return true;
    } catch (SQLException e) {
      if (!"55P03".equals(e.getSQLState())) {
        throw e;
      }
      return false;
    } finally {
      Sql.execute(c, "SET lock_timeout = " + shardTimeouts.lockTimeoutMs());
    }
  }

  static void unlockQuietly(Connection c, ReshardWorkflow w) {
    try {
      unlock(c, w);
    } catch (SQLException e) {
      LOG.log(System.Logger.Level.WARNING, "move " + w.id() + ": releasing the freeze failed (" + e.getMessage()
          + "); it ends with the mover's connection");
    }
  }

  /** Records that the rollback was abandoned, the freeze being released; the pause ends now, before that record. */
  SwitchResult abandonRollback(ReshardWorkflow w, long t0, long drainNanos, long catchUpNanos, String reason) {
    long releasedAt = System.nanoTime();
    store.setPhase(w.id(), ReshardPhase.WRITES_SWITCHED);
    SwitchResult result = new SwitchResult(false, (releasedAt - t0) / 1e6, drainNanos / 1e6, catchUpNanos / 1e6,
        -1, reason);
    LOG.log(System.Logger.Level.INFO, "move " + w.id() + ": " + result.describeRollback());
    return result;
  }

  /**
   * After the map gave the buckets back: the reverse path is no longer needed (the target's fence
   * refuses their writes), and the move is where it was before the write switch, with reads on the
   * source: {@code VERIFIED}, the forward subscription still keeping the target's copy current.
   */
  void finishRollback(ReshardWorkflow w, Connection source, Connection target) throws SQLException {
    dropReverse(w, source, target);
    store.setPhase(w.id(), ReshardPhase.VERIFIED);
  }

  /** After a crash during a rollback of the write switch: finish it if the target was fenced, else undo it. */
  void recoverRollback(ReshardWorkflow w) throws SQLException {
    control.abortStaged(stagedName(w));   // a staged map change the dead mover did not commit
    ShardMap map = control.load();
    boolean flippedBack = w.buckets().stream().allMatch(b -> map.ownerOf(b).equals(w.source()));
    try (Connection source = connect(map, w.source(), null, w.id() + "-recover");
        Connection target = connect(map, w.target(), null, w.id() + "-recover")) {
      if (flippedBack) {
        Fences.set(target, w.id(), w.buckets(), "fenced", w.source(), map.version(), w.lockKey());
        Fences.set(source, w.id(), w.buckets(), "open", w.source(), map.version(), w.lockKey());
        finishRollback(w, source, target);
        return;
      }
      if ("fenced".equals(Fences.state(target, w.id()))) {
        // writes are refused at the target: once the source has everything, the map can be flipped back
        long seq = Fences.writeMarker(target, w.id(), w.target());
        if (!awaitMarker(w, source, w.target(), seq, System.nanoTime() + 60_000_000_000L)) {
          throw new ReshardingException("Move " + w.id() + " is fenced at the target but the source does not catch up;"
              + " check the reverse subscription " + reverseSubscription(w) + " on '" + w.source() + "'");
        }
        Map<Integer, String> owners = new TreeMap<>();
        w.buckets().forEach(b -> owners.put(b, w.source()));
        long version = control.assignBuckets(map.version(), owners);
        Fences.set(source, w.id(), w.buckets(), "open", w.source(), version, w.lockKey());
        finishRollback(w, source, target);
        return;
      }
      // the freeze died with the mover's connection before anything changed: writes go on at the target
      Fences.set(source, w.id(), w.buckets(), "fenced", w.target(), map.version(), w.lockKey());
      store.setPhase(w.id(), ReshardPhase.WRITES_SWITCHED);
    }
  }
}
