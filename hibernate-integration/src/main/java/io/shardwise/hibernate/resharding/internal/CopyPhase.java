package io.shardwise.hibernate.resharding.internal;

import io.shardwise.hibernate.resharding.ReshardProgress;
import io.shardwise.hibernate.resharding.ReshardTable;
import io.shardwise.hibernate.resharding.ReshardWorkflow;
import io.shardwise.hibernate.resharding.ReshardingException;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The move's first phases, up to a target that keeps up with the source: set-up ({@code CREATED}: the
 * schema on the target, reference tables copied, replica identities, fences, publication and
 * subscription), the initial copy ({@code COPYING}, with its progress) and the catch-up
 * ({@code CATCHING_UP}, until the lag is below the switch's limit). Verification follows in {@link Mover}.
 */
final class CopyPhase extends MoveSteps {
  CopyPhase(MoveSteps shared) {
    super(shared);
  }

  void prepare(ReshardWorkflow w, Consumer<ReshardProgress> progress) throws SQLException {
    ShardMap map = control.load();
    ShardDescriptor newTarget = store.newTarget(w.id());
    try (Connection source = connect(map, w.source(), null, w.id());
        Connection target = connect(map, w.target(), newTarget, w.id())) {
      Fences.createSchema(source);
      Fences.createSchema(target);
      List<String> created = SchemaCopy.copy(source, target, w.tables(), log(w, w.target()));
      report(progress, w, "schema", 0, -1, 0, created.isEmpty() ? "target has every table"
          : "created on " + w.target() + ": " + created);
      if (newTarget != null && !map.shards().containsKey(w.target())) {
        control.upsertShard(newTarget);
        report(progress, w, "schema", 0, -1, 0, "added shard " + w.target() + " to the shard map (owns no bucket yet)");
      }
      for (ReshardTable t : w.tables()) {
        if (t.isReference()) {
          long rows = RowCopy.syncReference(source, target, t.name());
          store.tableProgress(w.id(), t.name(), rows, rows, "reference-copied", null);
          report(progress, w, "reference", rows, rows, 0, "reference table " + t.name() + ": " + rows + " rows copied");
        }
      }
      for (ReshardTable t : w.tables()) {
        if (!t.isReference()) {
          String chosen = Replication.coverShardKey(source, t, log(w, w.source()));
          // A new index on the target would be maintained row by row by the copy (about a third more
          // CPU per row there); built after the copy instead. Until then the target's primary key,
          // part of the source's new identity, is enough for the subscription to find rows.
          if (!Replication.wouldBuildIndex(target, t)) {
            Replication.coverShardKey(target, t, log(w, w.target()));
          }
          store.tableProgress(w.id(), t.name(), null, null, null, chosen);
          report(progress, w, "replica-identity", 0, -1, 0, "replica identity of " + t.name() + " on " + w.source()
              + ": " + chosen + " (set before the filtered publication, restored when the move ends)");
        }
      }
      Fences.set(source, w.id(), w.buckets(), "open", w.source(), -1, w.lockKey());
      Fences.set(target, w.id(), w.buckets(), "fenced", w.source(), map.version(), w.lockKey());
      long maxWait = Math.max(2000, settings.pauseLimitMs() * 10);
      for (ReshardTable t : w.tables()) {
        if (!t.isReference()) {
          log(w, w.source()).record("fence", t.name(), null);
          Fences.install(source, t, map.bucketCount(), maxWait);
          log(w, w.target()).record("fence", t.name(), null);
          Fences.install(target, t, map.bucketCount(), maxWait);
        }
      }
      // until a router has this map, its scatter-gather queries would read the target's copy as well
      awaitRouters(w, recordCopies(w, w.target()), settings.fenceGraceMs(), progress, "before the copy starts");
      log(w, w.source()).record("publication", w.publication(), null);
      Replication.createPublication(source, w.publication(), w.tables(), w.buckets(), map.bucketCount(), w.id());
      log(w, w.source()).record("slot", w.slot(), null);
      log(w, w.target()).record("subscription", w.subscription(), null);
      ShardDescriptor sourceShard = map.shard(w.source());
      Replication.createSubscription(target, w.subscription(), Replication.conninfo(sourceShard.primaryUrl(), user,
          password), w.publication());
      long oid = Replication.subscriptionOid(target, w.subscription());
      store.recordObject(w.id(), w.source(), "sync-slots", "pg_" + oid + "_sync_*", Long.toString(oid));
      report(progress, w, "copy", 0, w.rowsPlanned(), 0, "publication " + w.publication() + " on " + w.source()
          + ", subscription " + w.subscription() + " on " + w.target() + ": copying");
    }
    CrashPoints.at(CrashPoints.Point.DURING_COPY);
  }

  void awaitCopy(ReshardWorkflow w, Consumer<ReshardProgress> progress) throws SQLException {
    ShardMap map = control.load();
    Map<String, Long> planned = new HashMap<>();
    w.progress().forEach(p -> planned.put(p.table(), p.rowsPlanned()));
    long total = w.tables().stream().filter(t -> !t.isReference()).mapToLong(t -> planned.getOrDefault(t.name(), 0L))
        .sum();
    long lastDone = 0;
    long lastAt = System.nanoTime();
    long errorsSince = -1;
    try (Connection target = connect(map, w.target(), null, w.id())) {
      while (true) {
        long[] sync = Replication.syncState(target, w.subscription());
        boolean ready = sync[0] > 0 && sync[1] == 0;
        if (!ready && System.nanoTime() - lastAt < PROGRESS_INTERVAL_MS * 1_000_000L) {
          pause(COPY_POLL_MS); // the sync state often, so that the move goes on soon after the copy; progress less often
          continue;
        }
        Map<String, String> states = Replication.tableStates(target, w.subscription());
        Map<String, Long> copying = Replication.copyProgress(target);
        long done = 0;
        for (ReshardTable t : w.tables()) {
          if (t.isReference()) {
            continue;
          }
          String state = states.getOrDefault(Sql.bare(t.name()), states.get(t.name()));
          long rows = state == null || state.equals("i") || state.equals("d")
              ? Math.min(copying.getOrDefault(Sql.bare(t.name()), 0L), planned.getOrDefault(t.name(), 0L))
              : planned.getOrDefault(t.name(), 0L);
          done += rows;
        }
        long now = System.nanoTime();
        double rate = (done - lastDone) * 1e9 / Math.max(1, now - lastAt);
        lastDone = done;
        lastAt = now;
        report(progress, w, "copy", done, total, rate, null);
        if (ready) {
          for (ReshardTable t : w.tables()) {
            if (!t.isReference()) {
              store.tableProgress(w.id(), t.name(), null, planned.getOrDefault(t.name(), 0L), "copied", null);
            }
          }
          report(progress, w, "copy", total, total, 0, "copied; replica identity on " + w.target() + " next");
          for (ReshardTable t : w.tables()) {
            if (!t.isReference()) {
              long t0 = System.nanoTime();
              String chosen = Replication.coverShardKey(target, t, log(w, w.target()));
              report(progress, w, "replica-identity", 0, -1, 0, "replica identity of " + t.name() + " on " + w.target()
                  + ": " + chosen + String.format(java.util.Locale.ROOT, " (%.0f ms, after the copy)",
                      (System.nanoTime() - t0) / 1e6));
            }
          }
          return;
        }
        if (Replication.errors(target, w.subscription()) > 0) {
          errorsSince = errorsSince < 0 ? now : errorsSince;
          if (now - errorsSince > 30_000_000_000L) {
            throw new ReshardingException("The subscription " + w.subscription() + " on shard '" + w.target()
                + "' keeps failing (pg_stat_subscription_stats counts errors); its server log says why. Fix it and"
                + " resume, or cancel the move.");
          }
        }
        pause(COPY_POLL_MS);
      }
    }
  }

  void awaitCatchUp(ReshardWorkflow w, Consumer<ReshardProgress> progress) throws SQLException {
    ShardMap map = control.load();
    long deadline = System.nanoTime() + 600_000_000_000L;
    try (Connection source = connect(map, w.source(), null, w.id());
        Connection target = connect(map, w.target(), null, w.id())) {
      while (true) {
        long lag = Replication.lagBytes(source, w.slot());
        long t0 = System.nanoTime();
        markerRoundTrip(w, source, target, 60_000);
        long millis = (System.nanoTime() - t0) / 1_000_000;
        report(progress, w, "catch-up", 0, -1, 0, lag, millis, null);
        if (lag >= 0 && lag <= settings.maxSwitchLagBytes()) {
          return;
        }
        if (System.nanoTime() > deadline) {
          throw new ReshardingException("The target of move " + w.id() + " is still " + lag + " bytes behind after 10"
              + " minutes: catch-up does not converge at this write rate. Resume later, or cancel.");
        }
        pause(PROGRESS_INTERVAL_MS);
      }
    }
  }
}
