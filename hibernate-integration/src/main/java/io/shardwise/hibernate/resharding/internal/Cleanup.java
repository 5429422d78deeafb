package io.shardwise.hibernate.resharding.internal;

import io.shardwise.hibernate.resharding.ReshardObject;
import io.shardwise.hibernate.resharding.ReshardPhase;
import io.shardwise.hibernate.resharding.ReshardProgress;
import io.shardwise.hibernate.resharding.ReshardTable;
import io.shardwise.hibernate.resharding.ReshardWorkflow;
import io.shardwise.hibernate.resharding.ReshardingException;
import io.shardwise.hibernate.resharding.SwitchResult;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.Consumer;

/**
 * The end of a move: {@code complete} (after the write switch: the reverse path and replication
 * dropped, the moved rows deleted from the source in batches, fences and replica identities removed)
 * and {@code cancel} (from any phase: an unfinished switch settled, writes and reads returned to the
 * source, replication dropped, the target's copy deleted, fences and replica identities removed).
 */
final class Cleanup extends MoveSteps {
  private final Mover mover;
  private final WriteSwitch writeSwitch;

  Cleanup(MoveSteps shared, Mover mover, WriteSwitch writeSwitch) {
    super(shared);
    this.mover = mover;
    this.writeSwitch = writeSwitch;
  }

  ReshardWorkflow complete(String id, Consumer<ReshardProgress> progress) {
    ReshardWorkflow w = store.load(id);
    requirePhase(w, "complete", ReshardPhase.WRITES_SWITCHED, ReshardPhase.COMPLETING);
    if (w.flippedAt() != null) {
      // a router without the flipped map could write to the source once its fences are gone
      awaitRouters(w, w.flipVersion(), w.flippedAt().toEpochMilli() + settings.fenceGraceMs()
          - System.currentTimeMillis(), progress, "before the source's fences are dropped");
    }
    store.setPhase(id, ReshardPhase.COMPLETING);
    ShardMap map = control.load();
    try (Connection source = connect(map, w.source(), null, id + "-complete");
        Connection target = connect(map, w.target(), null, id + "-complete")) {
      dropReverse(w, source, target);
      dropReplication(w, source, target);
      long deleted = 0;
      Sql.execute(source, "SET shardwise.bypass_fence = 'on'");
      for (ReshardTable t : Sql.referencingFirst(source, w.tables())) { // an item before its order
        if (t.isReference()) {
          continue;
        }
        String filter = Sql.inBuckets(t, w.buckets(), map.bucketCount());
        long t0 = System.nanoTime();
        while (true) {
          long n = Sql.queryLong(source, "WITH gone AS (DELETE FROM " + Sql.table(t.name()) + " WHERE ctid = ANY(ARRAY("
              + "SELECT ctid FROM " + Sql.table(t.name()) + " WHERE " + filter + " LIMIT " + settings.deleteBatchRows()
              + ")) RETURNING 1) SELECT count(*) FROM gone");
          deleted += n;
          report(progress, w, "delete " + t.name(), deleted, w.rowsPlanned(),
              deleted * 1e9 / Math.max(1, System.nanoTime() - t0), null);
          if (n == 0) {
            break;
          }
        }
      }
      Sql.execute(source, "RESET shardwise.bypass_fence");
      removeFencesAndIdentities(w, source, target);
    } catch (SQLException e) {
      throw failure("complete move " + id, null, e);
    }
    recordCopies(w, null); // the source's copy is gone: scatter-gather reads the buckets unfiltered again
    store.setPhase(id, ReshardPhase.COMPLETED);
    return store.load(id);
  }

  ReshardWorkflow cancel(String id) {
    ReshardWorkflow w = settleStaged(id);
    if (w.phase() == ReshardPhase.COMPLETED || w.phase() == ReshardPhase.CANCELLED) {
      return w;
    }
    if (w.phase() == ReshardPhase.SWITCHING_WRITES) {
      try {
        writeSwitch.recoverSwitch(w);
      } catch (SQLException e) {
        throw failure("settle the interrupted write switch of move " + id, null, e);
      }
      w = store.load(id);
    }
    if (w.phase() == ReshardPhase.WRITES_SWITCHED || w.phase() == ReshardPhase.ROLLING_BACK_WRITES) {
      SwitchResult back = mover.rollbackWrites(id);
      if (!back.switched()) {
        throw new ReshardingException("Could not cancel move " + id + ": its writes must first return to '"
            + w.source() + "', and " + back.describeRollback() + ". Nothing was removed; run cancel again.");
      }
      w = store.load(id);
    }
    if (w.phase() == ReshardPhase.COMPLETING) {
      throw new ReshardingException("Move " + id + " is completing: the moved rows are being deleted from '"
          + w.source() + "'. Run complete again; it cannot be cancelled any more.");
    }
    if (w.phase() == ReshardPhase.READS_SWITCHED) {
      mover.rollback(id);
    }
    store.setPhase(id, ReshardPhase.CANCELLING);
    ShardMap map = control.load();
    ShardDescriptor newTarget = store.newTarget(id);
    try (Connection source = connect(map, w.source(), null, id + "-cancel");
        Connection target = connect(map, w.target(), newTarget, id + "-cancel")) {
      dropReverse(w, source, target);
      dropReplication(w, source, target);
      if (Fences.state(target, id) != null || SchemaCopy.exists(target, firstSharded(w).name())) {
        Sql.execute(target, "SET shardwise.bypass_fence = 'on'");
        for (ReshardTable t : Sql.referencingFirst(target, w.tables())) {
          if (!t.isReference() && SchemaCopy.exists(target, t.name()) && !map.shards().isEmpty()) {
            Sql.execute(target, "DELETE FROM " + Sql.table(t.name()) + " WHERE " + Sql.inBuckets(t, w.buckets(),
                map.bucketCount()));
          }
        }
        Sql.execute(target, "RESET shardwise.bypass_fence");
      }
      removeFencesAndIdentities(w, source, target);
    } catch (SQLException e) {
      throw failure("cancel move " + id, null, e);
    }
    if (control.load().shards().containsKey(w.target())) {
      recordCopies(w, null); // the target's copy is gone
    }
    store.setPhase(id, ReshardPhase.CANCELLED);
    return store.load(id);
  }

  static ReshardTable firstSharded(ReshardWorkflow w) {
    return w.tables().stream().filter(t -> !t.isReference()).findFirst().orElseThrow();
  }

  void dropReplication(ReshardWorkflow w, Connection source, Connection target) throws SQLException {
    long oid = Replication.subscriptionOid(target, w.subscription());
    if (oid < 0) {
      oid = recordedOid(w);
    }
    Replication.dropSubscription(target, w.subscription());
    store.dropped(w.id(), w.target(), "subscription", w.subscription());
    Replication.dropSlots(source, Replication.slotsOf(source, w.slot(), oid));
    store.dropped(w.id(), w.source(), "slot", w.slot());
    store.dropped(w.id(), w.source(), "sync-slots", "pg_" + oid + "_sync_*");
    Replication.dropPublication(source, w.publication());
    store.dropped(w.id(), w.source(), "publication", w.publication());
  }

  void removeFencesAndIdentities(ReshardWorkflow w, Connection source, Connection target) throws SQLException {
    for (ReshardTable t : w.tables()) {
      if (!t.isReference()) {
        Fences.uninstall(source, t);
        store.dropped(w.id(), w.source(), "fence", t.name());
        Fences.uninstall(target, t);
        store.dropped(w.id(), w.target(), "fence", t.name());
      }
    }
    Fences.remove(source, w.id());
    Fences.remove(target, w.id());
    for (ReshardObject o : store.objects(w.id())) {
      if (!o.exists()) {
        continue;
      }
      Connection c = o.shard().equals(w.source()) ? source : target;
      if (o.kind().equals("replica-identity")) {
        Replication.restoreIdentity(c, o.name(), o.detail());
        store.dropped(w.id(), o.shard(), o.kind(), o.name());
      }
    }
    for (ReshardObject o : store.objects(w.id())) {
      if (o.exists() && o.kind().equals("index")) {
        Replication.dropIndex(o.shard().equals(w.source()) ? source : target, o.detail(), o.name());
        store.dropped(w.id(), o.shard(), o.kind(), o.name());
      }
    }
  }
}
