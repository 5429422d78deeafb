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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The write switch ({@code VERIFIED}/{@code READS_SWITCHED} to {@code WRITES_SWITCHED}): the staged
 * map announced and staged, the reverse path set up, the freeze (drain under the move's advisory lock,
 * marker, fences flipped, staged map committed and announced, lock released) bounded by the pause
 * limit and abandoned within it, and the recovery of a switch whose mover died. See {@link Mover}'s
 * header for the protocol; {@link WriteRollback} runs it in reverse.
 */
final class WriteSwitch extends MoveSteps {
  WriteSwitch(MoveSteps shared) {
    super(shared);
  }

  SwitchResult switchWrites(String id) {
    ReshardWorkflow w = store.load(id);
    requirePhase(w, "switch writes", ReshardPhase.VERIFIED, ReshardPhase.READS_SWITCHED);
    long tablesBuckets = w.tables().stream().mapToLong(t -> t.isReference() ? 1 : w.buckets().size()).sum();
    List<String> open = store.uncheckedOrDifferent(id);
    if (!open.isEmpty() || store.equalChecks(id) < tablesBuckets) {
      throw new ReshardingException("Refused to switch the writes of move " + id + ": verification is not complete"
          + " and equal (" + store.equalChecks(id) + " of " + tablesBuckets + " (table, bucket) pairs equal"
          + (open.isEmpty() ? "" : "; not equal: " + open.subList(0, Math.min(10, open.size()))) + "). Run verify.");
    }
    ShardMap map = control.load();
    try (Connection source = connect(map, w.source(), null, id + "-switch");
        Connection target = connect(map, w.target(), null, id + "-switch")) {
      long lag = Replication.lagBytes(source, w.slot());
      if (lag < 0 || lag > settings.maxSwitchLagBytes()) {
        return new SwitchResult(false, 0, 0, 0, -1, "the target is " + lag + " bytes behind (limit "
            + settings.maxSwitchLagBytes() + "); writes were not paused");
      }
      // the routers learn the next map now, while the reverse path is set up: they build its routing
      // and open connections to the target for the writers that will come over at the flip
      Map<Integer, String> owners = new TreeMap<>();
      w.buckets().forEach(b -> owners.put(b, w.target()));
      String token = control.announceStaged(map.version(), owners);
      long announced = System.nanoTime();
      setUpReverse(w, map, source, target);
      store.startSwitch(id, w.phase());
      try (Connection controlConnection = control.openConnection(switchConnectionName(id, "switch"))) {
        warmFreezeStatements(id, source, target, controlConnection);
        // the map change is validated and staged now (a prepared transaction where the control database allows it)
        control.abortStaged(stagedName(w));   // one left by a mover that died in a switch
        ControlDatabase.StagedAssignment assignment;
        long staging = System.nanoTime();
        try {
          assignment = control.stageAssignment(controlConnection, map.version(), owners, stagedName(w), token);
        } catch (ShardMapConflictException | io.shardwise.hibernate.routing.ControlDatabaseException e) {
          return abandon(w, staging, staging, 0, 0, 0, 0, "the shard map change could not be staged (writes were not"
              + " paused): " + e.getMessage());
        }
        awaitStagedLead(announced);
        try {
          return freezeAndFlip(w, map, source, target, assignment);
        } finally {
          assignment.abort();   // after the freeze: a no-op once committed
        }
      }
    } catch (SQLException e) {
      throw failure("switch the writes of move " + id, null, e);
    }
  }

  SwitchResult freezeAndFlip(ReshardWorkflow w, ShardMap map, Connection source, Connection target,
      ControlDatabase.StagedAssignment assignment) throws SQLException {
    long limitNanos = settings.pauseLimitMs() * 1_000_000;
    // before the freeze: the target's fence opens (no map gives it the buckets yet, so nobody writes
    // there), and the lock timeout is set, so that neither costs a round trip inside the pause
    Fences.set(target, w.id(), w.buckets(), "open", w.target(), map.version() + 1, w.lockKey());
    Sql.execute(source, "SET lock_timeout = '" + settings.pauseLimitMs() + "ms'");
    long t0 = System.nanoTime();
    long deadline = t0 + limitNanos;
    try {
      Sql.queryText(source, "SELECT pg_advisory_lock(?)", w.lockKey());
    } catch (SQLException e) {
      if (!"55P03".equals(e.getSQLState())) {
        throw e;
      }
      SwitchResult result = abandon(w, t0, System.nanoTime(), 0, 0, 0, 0, "in-flight transactions on the moving buckets"
          + " did not finish within " + settings.pauseLimitMs() + " ms");
      closeTargetFence(w, map, target);
      return result;
    }
    long drained = System.nanoTime();
    boolean released = false;
    try {
      long seq = Fences.writeMarker(source, w.id(), w.source());
      boolean caughtUp = awaitMarker(w, target, w.source(), seq, deadline);
      long applied = System.nanoTime();
      if (!caughtUp) {
        unlock(source, w);
        released = true;
        SwitchResult result = abandon(w, t0, System.nanoTime(), drained - t0, applied - drained, 0, 0, "the target did"
            + " not apply the source's last change within " + settings.pauseLimitMs() + " ms (catch-up too slow)");
        closeTargetFence(w, map, target);
        return result;
      }
      CrashPoints.at(CrashPoints.Point.AFTER_FREEZE);
      Flip flip = flip(w, map, source, assignment, deadline);
      if (flip.version() < 0) {
        unlock(source, w);
        released = true;
        SwitchResult result = abandon(w, t0, System.nanoTime(), drained - t0, applied - drained, flip.fenceNanos(),
            flip.mapNanos(), flip.failure());
        closeTargetFence(w, map, target);
        return result;
      }
      long flipped = System.nanoTime();
      CrashPoints.at(CrashPoints.Point.AFTER_FLIP);
      // the routers install the staged map on this notification, before the writers waiting in the
      // freeze are released: a write refused by the fence is retried on the target at once
      assignment.announce();
      unlock(source, w);
      released = true;
      long end = System.nanoTime();
      store.switched(w.id(), flip.version());
      SwitchResult result = new SwitchResult(true, (end - t0) / 1e6, (drained - t0) / 1e6, (applied - drained) / 1e6,
          flip.fenceNanos() / 1e6, flip.mapNanos() / 1e6, (end - flipped) / 1e6, flip.version(), null);
      LOG.log(System.Logger.Level.INFO, "move " + w.id() + ": " + result.describe());
      return result;
    } finally {
      // the lock timeout stays set: the connection is the switch's own and closes with it
      if (!released) {
        try {
          unlock(source, w);
        } catch (SQLException e) {
          LOG.log(System.Logger.Level.WARNING, "move " + w.id() + ": releasing the freeze failed (" + e.getMessage()
              + "); it ends with the mover's connection");
        }
      }
    }
  }

  /**
   * The outcome of {@link #flip}: the new map version (fences and map switched), or -1 and why
   * nothing was switched (fences put back); with how long the fences and the map change took.
   */
  record Flip(long version, String failure, long fenceNanos, long mapNanos) {}

  /**
   * Inside the freeze, the target caught up (its fence already open): fences the source and commits
   * the staged map change, both before {@code deadline}. Each is one round trip; the map change runs
   * under a statement timeout of the time left. When the time is up or the map change fails, the
   * source's fence is put back and nothing is switched, unless the map did change (a lost reply), which
   * the mover reads back before it decides.
   */
  Flip flip(ReshardWorkflow w, ShardMap map, Connection source, ControlDatabase.StagedAssignment assignment,
      long deadline) throws SQLException {
    long start = System.nanoTime();
    if (start >= deadline) {
      return new Flip(-1, "the pause limit of " + settings.pauseLimitMs() + " ms was used up before the fences could be"
          + " switched", 0, 0);
    }
    Fences.set(source, w.id(), w.buckets(), "fenced", w.target(), map.version() + 1, w.lockKey());
    long fenced = System.nanoTime();
    long leftMillis = (deadline - fenced) / 1_000_000;
    String failure;
    if (leftMillis < 1) {
      failure = "the pause limit of " + settings.pauseLimitMs() + " ms was used up before the shard map could be changed";
    } else {
      try {
        return new Flip(assignment.commit(leftMillis), null, fenced - start, System.nanoTime() - fenced);
      } catch (ShardMapConflictException e) {
        failure = "the shard map could not be changed: " + e.getMessage();
      } catch (io.shardwise.hibernate.routing.ControlDatabaseException e) {
        long version = flippedVersion(w, e, w.target());
        if (version >= 0) {
          return new Flip(version, null, fenced - start, System.nanoTime() - fenced);
        }
        failure = "the shard map could not be changed within the pause limit of " + settings.pauseLimitMs() + " ms: "
            + e.getMessage();
      }
    }
    Fences.set(source, w.id(), w.buckets(), "open", w.source(), -1, w.lockKey());
    return new Flip(-1, failure, fenced - start, System.nanoTime() - fenced);
  }

  /** After an abandoned switch, with writes going on at the source: the target's fence refuses writes again. */
  static void closeTargetFence(ReshardWorkflow w, ShardMap map, Connection target) throws SQLException {
    Fences.set(target, w.id(), w.buckets(), "fenced", w.source(), map.version(), w.lockKey());
  }

  SwitchResult abandon(ReshardWorkflow w, long t0, long releasedAt, long drainNanos, long catchUpNanos,
      long fenceNanos, long mapNanos, String reason) {
    ReshardWorkflow current = store.load(w.id());
    store.setPhase(w.id(), current.switchedFrom() != null ? current.switchedFrom() : ReshardPhase.VERIFIED);
    SwitchResult result = new SwitchResult(false, (releasedAt - t0) / 1e6, drainNanos / 1e6, catchUpNanos / 1e6,
        fenceNanos / 1e6, mapNanos / 1e6, 0, -1, reason);
    LOG.log(System.Logger.Level.INFO, "move " + w.id() + ": " + result.describe());
    return result;
  }

  /** After a crash during a write switch: finish it if the source was fenced, else undo it. */
  void recoverSwitch(ReshardWorkflow w) throws SQLException {
    control.abortStaged(stagedName(w));   // a staged map change the dead mover did not commit
    ShardMap map = control.load();
    boolean flipped = w.buckets().stream().allMatch(b -> map.ownerOf(b).equals(w.target()));
    try (Connection source = connect(map, w.source(), null, w.id() + "-recover");
        Connection target = connect(map, w.target(), null, w.id() + "-recover")) {
      if (flipped) {
        Fences.set(target, w.id(), w.buckets(), "open", w.target(), map.version(), w.lockKey());
        Fences.set(source, w.id(), w.buckets(), "fenced", w.target(), map.version(), w.lockKey());
        store.switched(w.id(), map.version());
        return;
      }
      if ("fenced".equals(Fences.state(source, w.id()))) {
        // writes are refused at the source: once the target has everything, the flip can be made
        if (!markerRoundTrip(w, source, target, 60_000)) {
          throw new ReshardingException("Move " + w.id() + " is fenced at the source but its target does not catch up;"
              + " check the subscription " + w.subscription());
        }
        Map<Integer, String> owners = new TreeMap<>();
        w.buckets().forEach(b -> owners.put(b, w.target()));
        long version = control.assignBuckets(map.version(), owners);
        Fences.set(target, w.id(), w.buckets(), "open", w.target(), version, w.lockKey());
        Fences.set(source, w.id(), w.buckets(), "fenced", w.target(), version, w.lockKey());
        store.switched(w.id(), version);
        return;
      }
      Fences.set(target, w.id(), w.buckets(), "fenced", w.source(), map.version(), w.lockKey());
      store.setPhase(w.id(), w.switchedFrom() != null ? w.switchedFrom() : ReshardPhase.VERIFIED);
    }
  }

  /**
   * Creates the way back before the write switch: on the target a publication of the moving buckets
   * (the forward row filter) and the move's markers; on the source a subscription to it that copies
   * nothing ({@code copy_data = false}) and streams every change committed on the target after its
   * slot was created. The slot is created by {@code CREATE SUBSCRIPTION} before it returns, and the
   * target's fence opens only later, in the switch: no write the target accepts can be missed. Both
   * sides use {@code origin = none}, so a change applied by one direction is never sent back by the
   * other. The apply worker on the source runs with {@code session_replication_role = replica}, so
   * the source's fence trigger (an ordinary, origin-enabled trigger) does not refuse its writes.
   * Idempotent: objects that exist are reused. Ends with a marker from the target seen on the source.
   */
  void setUpReverse(ReshardWorkflow w, ShardMap map, Connection source, Connection target) throws SQLException {
    String publication = reversePublication(w);
    String subscription = reverseSubscription(w);
    log(w, w.target()).record("publication", publication, "reverse");
    Replication.createPublication(target, publication, w.tables(), w.buckets(), map.bucketCount(), w.id());
    log(w, w.target()).record("slot", subscription, "reverse");
    log(w, w.source()).record("subscription", subscription, "reverse");
    Replication.createSubscription(source, subscription, Replication.conninfo(map.shard(w.target()).primaryUrl(), user,
        password), publication, false);
    CrashPoints.at(CrashPoints.Point.DURING_REVERSE_SETUP);
    long seq = Fences.writeMarker(target, w.id(), w.target());
    if (!awaitMarker(w, source, w.target(), seq, System.nanoTime() + 60_000_000_000L)) {
      throw new ReshardingException("Reverse replication of move " + w.id() + " (subscription " + subscription + " on '"
          + w.source() + "') does not apply the target's changes; writes were not switched. Check the source's server"
          + " log, then switch again, or cancel.");
    }
  }
}
