package io.shardwise.hibernate.transaction.internal;

import io.shardwise.hibernate.internal.jdbc.ShardConnection;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Recovery of two-phase commit: what a coordinator left prepared on the shards (it crashed, stalled
 * or lost its connection between PREPARE and COMMIT PREPARED), resolved from the outcome of its
 * decider's transaction alone. {@link TwoPhaseCommit} owns the protocol, the reading of a decider's
 * outcome and the finishing of a prepared transaction; this class owns finding the prepared
 * transactions, deciding which it may touch (ours, well-formed, of a coordinator that is gone or past
 * the grace period, not in flight here) and reporting what it did. Why a late coordinator cannot
 * commit after recovery aborted is {@link TwoPhaseCommit}'s essay.
 */
final class TwoPhaseRecovery {
  private static final System.Logger LOG = System.getLogger("io.shardwise.tx");

  private final TwoPhaseCommit coordinator;
  private final ShardAccess shardAccess;
  private final TxLog log;
  private final String coordinatorId;
  private final Set<String> reportedUntrusted = ConcurrentHashMap.newKeySet();
  /** One recovery at a time ({@link #recover}). */
  private final ReentrantLock recovering = new ReentrantLock();

  TwoPhaseRecovery(TwoPhaseCommit coordinator, ShardAccess shardAccess, TxLog log, String coordinatorId) {
    this.coordinator = coordinator;
    this.shardAccess = shardAccess;
    this.log = log;
    this.coordinatorId = coordinatorId;
  }

  /** See {@link TwoPhaseCommit#recover}. */
  TwoPhaseCommit.RecoveryResult recover(long graceMillis, long staleAfterMillis) {
    // a lock, not a monitor: recovery waits on shards, and a virtual thread that waits inside a
    // monitor pins its carrier thread on JDK 21 (up to JDK 23)
    recovering.lock();
    try {
      return recoverAlone(graceMillis, staleAfterMillis);
    } finally {
      recovering.unlock();
    }
  }

  /** One of our prepared transactions on one shard. */
  private record Prepared(GlobalTransactionId id, boolean pastGrace, long xid) {}

  private TwoPhaseCommit.RecoveryResult recoverAlone(long graceMillis, long staleAfterMillis) {
    Set<String> live;
    boolean everyoneMayBeAlive = false;
    try {
      live = log.liveCoordinators(staleAfterMillis);
    } catch (RuntimeException e) {
      // Without heartbeats, only the grace period (and this coordinator's own bookkeeping) says who is done.
      live = Set.of();
      everyoneMayBeAlive = true;
      LOG.log(System.Logger.Level.WARNING, "Recovery cannot read coordinator heartbeats (" + e.getMessage() + "); it"
          + " resolves only transactions older than the grace period and this instance's own");
    }
    int committed = 0;
    int rolledBack = 0;
    int skipped = 0;
    List<String> unreachable = new ArrayList<>();
    List<String> untrusted = new ArrayList<>();
    Set<String> shardIds = shardAccess.shardMap().shards().keySet();
    for (String shardId : shardIds) {
      List<Prepared> ours;
      try {
        ours = onLiveConnection(shardId, () -> preparedOnShard(shardId, graceMillis, shardIds, untrusted));
      } catch (RuntimeException e) {
        unreachable.add(shardId);
        LOG.log(System.Logger.Level.WARNING, "Recovery could not list prepared transactions on shard '" + shardId
            + "': " + e.getMessage());
        continue;
      }
      for (Prepared p : ours) {
        GlobalTransactionId id = p.id();
        boolean mine = coordinatorId.equals(id.coordinator());
        boolean coordinatorGone = !everyoneMayBeAlive && !live.contains(id.coordinator());
        boolean resolvable = mine ? !coordinator.inFlight(id.gid()) : (p.pastGrace() || coordinatorGone);
        if (!resolvable) {
          skipped++;
          continue;
        }
        TwoPhaseCommit.Outcome outcome;
        try {
          outcome = onLiveConnection(id.deciderShard(), () -> coordinator.settle(id));
        } catch (RuntimeException e) {
          skipped++;
          if (!unreachable.contains(id.deciderShard())) {
            unreachable.add(id.deciderShard());
          }
          LOG.log(System.Logger.Level.WARNING, "Recovery leaves " + id + " prepared on shard '" + shardId + "': its"
              + " outcome is that of transaction " + id.deciderXidText() + " on shard '" + id.deciderShard()
              + "', which could not be read (" + e.getMessage() + ")");
          continue;
        }
        if (outcome == TwoPhaseCommit.Outcome.IN_PROGRESS) {
          skipped++;
          LOG.log(System.Logger.Level.WARNING, "Recovery leaves " + id + " prepared on shard '" + shardId
              + "': transaction " + id.deciderXidText() + " on shard '" + id.deciderShard() + "' is still in progress"
              + " after its backend was told to end; retrying next pass");
          continue;
        }
        if (outcome == TwoPhaseCommit.Outcome.FORGOTTEN || outcome == TwoPhaseCommit.Outcome.OTHER_HISTORY) {
          skipped++;
          LOG.log(System.Logger.Level.ERROR, "Recovery leaves " + id + " prepared on shard '" + shardId + "' and"
              + " will not guess: " + (outcome == TwoPhaseCommit.Outcome.FORGOTTEN
                  ? "transaction " + id.deciderXidText() + " is older than the commit log of shard '"
                      + id.deciderShard() + "'"
                  : "shard '" + id.deciderShard() + "' is no longer the server history that assigned transaction "
                      + id.deciderXidText() + " (failover, restore or rebuild since)")
              + ", so that transaction's outcome cannot be read. Find out by hand whether its writes on shard '"
              + id.deciderShard() + "' are there, then run COMMIT PREPARED or ROLLBACK PREPARED " + id.sqlLiteral()
              + " on shard '" + shardId + "'");
          continue;
        }
        boolean commit = outcome == TwoPhaseCommit.Outcome.COMMITTED;
        try {
          onLiveConnection(shardId, () -> {
            coordinator.finish(shardId, id, commit, p.xid());
            return null;
          });
          if (commit) {
            committed++;
          } else {
            rolledBack++;
          }
          LOG.log(System.Logger.Level.INFO, "Recovery: " + (commit ? "COMMIT" : "ROLLBACK") + " of in-doubt " + id
              + " on shard '" + shardId + "'");
        } catch (TwoPhaseCommit.AtomicityViolated e) {
          LOG.log(System.Logger.Level.ERROR, e.getMessage());
        } catch (RuntimeException e) {
          if (!unreachable.contains(shardId)) {
            unreachable.add(shardId);
          }
          LOG.log(System.Logger.Level.WARNING, "Recovery could not finish " + id + " on shard '" + shardId + "': "
              + e.getMessage());
        }
      }
    }
    return new TwoPhaseCommit.RecoveryResult(committed, rolledBack, skipped, List.copyOf(unreachable), List.copyOf(untrusted));
  }

  /**
   * {@code step} of recovery on a shard, run once more on a new connection when the pooled one had
   * been ended by its server since it was last used (a restart, an administrator): the pool's other
   * idle connections are dropped first, as they are likely dead too. Every step may run twice: the
   * reads change nothing, and a second COMMIT or ROLLBACK PREPARED that finds nothing to finish
   * verifies the transaction's outcome instead.
   */
  private <T> T onLiveConnection(String shardId, java.util.function.Supplier<T> step) {
    try {
      return step.get();
    } catch (RuntimeException e) {
      if (!endedByItsServer(e)) {
        throw e;
      }
      shardAccess.dropIdlePrimaryConnections(shardId);
      return step.get();
    }
  }

  private static boolean endedByItsServer(Throwable failure) {
    for (Throwable t = failure; t != null && t.getCause() != t; t = t.getCause()) {
      if (t instanceof SQLException sql) {
        return ShardConnection.isConnectionLost(sql);
      }
    }
    return false;
  }

  /**
   * Our prepared transactions on a shard. Each comes with whether it is older than the grace period
   * and its own 64-bit transaction id: {@code pg_prepared_xacts} shows the 32-bit one, widened here
   * against the next id to be assigned (a prepared transaction is less than 2^31 ids behind it).
   * Every other {@code sw:} gid is added to {@code untrusted} and logged once.
   */
  private List<Prepared> preparedOnShard(String shardId, long graceMillis, Set<String> shardIds,
      List<String> untrusted) {
    List<Prepared> ours = new ArrayList<>();
    try (Connection c = shardAccess.primaryConnection(shardId);
        PreparedStatement ps = c.prepareStatement("""
            SELECT p.gid, p.owner = current_user, p.prepared < now() - make_interval(secs => ?),
                   (n.next - ((n.next % 4294967296) - p.transaction::text::numeric + 4294967296) % 4294967296)::text
            FROM pg_prepared_xacts p,
                 (SELECT pg_snapshot_xmax(pg_current_snapshot())::text::numeric AS next) n
            WHERE p.database = current_database() AND p.gid LIKE 'sw:%'
            ORDER BY p.prepared""")) {
      ps.setDouble(1, graceMillis / 1000.0);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String gid = rs.getString(1);
          boolean ownedByUs = rs.getBoolean(2);
          GlobalTransactionId id = GlobalTransactionId.parse(gid);
          String refusal = id == null ? "it is not of Shardwise's format sw:<coordinator>:<shard>:<xid>"
              : !ownedByUs ? "another role prepared it"
              : !shardIds.contains(id.deciderShard()) ? "it names shard '" + id.deciderShard() + "', which the shard"
                  + " map does not have"
              : null;
          if (refusal == null) {
            ours.add(new Prepared(id, rs.getBoolean(3), Long.parseUnsignedLong(rs.getString(4))));
            continue;
          }
          String shown = shardId + ": " + GlobalTransactionId.printable(gid);
          untrusted.add(shown);
          if (reportedUntrusted.add(shown)) {
            LOG.log(System.Logger.Level.WARNING, "Recovery leaves prepared transaction " + GlobalTransactionId.printable(gid)
                + " on shard '" + shardId + "' alone: " + refusal + ". If it is not yours, find out who prepared it"
                + " (pg_prepared_xacts.owner).");
          }
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    return ours;
  }
}
