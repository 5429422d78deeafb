package io.shardwise.hibernate.transaction.internal;

import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.transaction.CrossShardAbortedException;
import io.shardwise.hibernate.transaction.CrossShardTransaction;
import io.shardwise.hibernate.transaction.TransactionInDoubtException;
import io.shardwise.hibernate.transaction.internal.TxLog.Decision;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.hibernate.Session;
import org.hibernate.Transaction;

/**
 * Two-phase commit over shard primaries with PostgreSQL prepared transactions.
 *
 * <h2>Why it is safe</h2>
 *
 * <p>Phase one: every participant flushes, then runs {@code PREPARE TRANSACTION '<gid>'}; after
 * that its changes survive a crash or restart of the server, and only {@code COMMIT PREPARED} or
 * {@code ROLLBACK PREPARED} ends it. If any participant fails to prepare, the others are rolled back
 * (prepared ones with {@code ROLLBACK PREPARED}) and no decision is ever logged.
 *
 * <p>The decision: the coordinator inserts {@code COMMIT} for the gid into {@code shardwise.global_tx}
 * in the control database. Recovery, when it finds a prepared transaction it may resolve, inserts
 * {@code ABORT} for the same gid. Both inserts are {@code ON CONFLICT DO NOTHING} on the gid's primary
 * key, so exactly one decision exists and both sides follow it: a slow coordinator whose transaction
 * recovery already aborted learns so and rolls back rather than committing half. The absence of a
 * decision therefore means abort (presumed abort), and nothing is committed anywhere before
 * {@code COMMIT} is durable.
 *
 * <p>Phase two: {@code COMMIT PREPARED} on each participant. A participant that cannot be reached now
 * stays prepared and recovery commits it later; the caller's transaction counts as committed.
 *
 * <h2>Global transaction ids</h2>
 *
 * <p>{@code sw:<coordinator>:<sequence>}: the coordinator is a random id of this runtime, registered
 * with a heartbeat in {@code shardwise.tx_coordinator}. Recovery resolves a prepared transaction of
 * ours when its coordinator is this runtime and no longer working on it, when its coordinator's
 * heartbeat stopped, or when it has been prepared longer than the grace period. The grace period
 * only spares live coordinators a needless abort; correctness rests on the single decision above.
 */
public final class TwoPhaseCommit {
  private static final System.Logger LOG = System.getLogger("io.shardwise.tx");
  static final String GID_PREFIX = "sw:";

  private final ShardAccess shardAccess;
  private final TxLog log;
  private final String coordinatorId;
  private final CrossShardService service;
  private final AtomicLong sequence = new AtomicLong();
  private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
  private final Set<String> checkedShards = ConcurrentHashMap.newKeySet();

  TwoPhaseCommit(ShardAccess shardAccess, TxLog log, String coordinatorId, CrossShardService service) {
    this.shardAccess = shardAccess;
    this.log = log;
    this.coordinatorId = coordinatorId;
    this.service = service;
  }

  // =========================================================================================
  // The coordinator
  // =========================================================================================

  /** Runs {@code work} atomically over the shards it touches; see {@link CrossShardTransaction}. */
  public <R> R execute(Function<String, Session> opener, Function<CrossShardTransaction, R> work) {
    Participants participants = new Participants(opener);
    String gid = null;
    boolean crashed = false;
    try {
      R result;
      try {
        result = work.apply(participants);
      } catch (RuntimeException e) {
        participants.rollbackAll(e);
        throw e;
      }
      List<Participant> all = List.copyOf(participants.byShard.values());
      if (all.isEmpty()) {
        return result;
      }
      if (all.size() == 1) {
        all.get(0).commitLocally();
        return result;
      }
      gid = GID_PREFIX + coordinatorId + ":" + sequence.incrementAndGet();
      inFlight.add(gid);
      prepareAll(gid, all);
      service.fault(FaultInjector.Point.AFTER_PREPARE, gid, null);
      decideAndCommit(gid, all);
      return result;
    } catch (Error e) {
      crashed = true;
      throw e;
    } finally {
      participants.closeAll(crashed);
      if (gid != null) {
        inFlight.remove(gid);
      }
    }
  }

  private void prepareAll(String gid, List<Participant> all) {
    for (Participant p : all) {
      try {
        p.session.flush();
      } catch (RuntimeException e) {
        abort(gid, all, e);
        throw aborted(gid, "flushing on shard '" + p.shardId + "' failed: " + e.getMessage(), e);
      }
    }
    for (Participant p : all) {
      try {
        requirePreparedTransactions(p.shardId);
        service.fault(FaultInjector.Point.BEFORE_PREPARE, gid, p.shardId);
        p.prepare(gid);
      } catch (RuntimeException e) {
        abort(gid, all, e);
        throw aborted(gid, "shard '" + p.shardId + "' could not prepare: " + e.getMessage(), e);
      }
    }
  }

  private void decideAndCommit(String gid, List<Participant> all) {
    List<String> shards = all.stream().map(p -> p.shardId).toList();
    Decision decision;
    try {
      decision = log.decide(gid, Decision.COMMIT, coordinatorId, shards);
    } catch (RuntimeException writeFailed) {
      // The insert may or may not have committed. Ask again; if the log still cannot answer, the
      // transaction is in doubt and recovery settles it from whatever the log holds.
      try {
        decision = log.decide(gid, Decision.ABORT, coordinatorId, shards);
      } catch (RuntimeException again) {
        writeFailed.addSuppressed(again);
        throw new TransactionInDoubtException("Cross-shard transaction " + gid + " is prepared on shards " + shards
            + " but its commit decision could not be confirmed in control database " + log.displayUrl() + ": "
            + writeFailed.getMessage() + ". Recovery will commit it if the decision was logged and roll it back"
            + " otherwise, once the control database answers.", gid, writeFailed);
      }
    }
    if (decision == Decision.ABORT) {
      abort(gid, all, null);
      throw aborted(gid, "recovery decided to abort it before its commit decision was logged", null);
    }
    service.fault(FaultInjector.Point.AFTER_DECISION, gid, null);
    boolean allCommitted = true;
    for (Participant p : all) {
      try {
        finish(p.shardId, gid, true);
        p.done = true;
        service.fault(FaultInjector.Point.AFTER_COMMIT, gid, p.shardId);
      } catch (RuntimeException e) {
        allCommitted = false;
        LOG.log(System.Logger.Level.WARNING, "Cross-shard transaction " + gid + " is committed but shard '"
            + p.shardId + "' could not apply it yet (" + e.getMessage() + "); recovery will commit it there");
      }
    }
    if (allCommitted) {
      try {
        log.forget(gid);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.DEBUG, "Could not remove the decision of " + gid + ": " + e.getMessage());
      }
    }
  }

  /** Rolls back every participant: prepared ones with ROLLBACK PREPARED, the others locally. */
  private void abort(String gid, List<Participant> all, RuntimeException cause) {
    for (Participant p : all) {
      try {
        if (p.prepared) {
          finish(p.shardId, gid, false);
          p.done = true;
        } else {
          p.rollbackLocally();
        }
      } catch (RuntimeException e) {
        if (cause != null) {
          cause.addSuppressed(e);
        }
        LOG.log(System.Logger.Level.WARNING, "Could not roll back " + gid + " on shard '" + p.shardId + "' ("
            + e.getMessage() + "); recovery will roll it back");
      }
    }
  }

  private static CrossShardAbortedException aborted(String gid, String why, Throwable cause) {
    return new CrossShardAbortedException("Cross-shard transaction " + gid + " was rolled back on every shard: "
        + why + ". Nothing it wrote is visible anywhere; it is safe to retry.", cause);
  }

  /**
   * COMMIT PREPARED or ROLLBACK PREPARED; tried up to three times, since a pooled connection may
   * have died with a server restart (the pool drops it and hands out another).
   */
  private void finish(String shardId, String gid, boolean commit) {
    for (int attempt = 1; ; attempt++) {
      try {
        finishOnce(shardId, gid, commit);
        return;
      } catch (RuntimeException e) {
        if (attempt == 3) {
          throw e;
        }
      }
    }
  }

  /** One attempt on an autocommit connection; an unknown gid is already finished. */
  private void finishOnce(String shardId, String gid, boolean commit) {
    try (Connection c = shardAccess.primaryConnection(shardId)) {
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        s.execute((commit ? "COMMIT PREPARED '" : "ROLLBACK PREPARED '") + gid + "'");
      }
    } catch (SQLException e) {
      if ("42704".equals(e.getSQLState())) {
        return; // no such prepared transaction: resolved meanwhile (by us or by recovery)
      }
      throw new IllegalStateException((commit ? "COMMIT" : "ROLLBACK") + " PREPARED '" + gid + "' on shard '"
          + shardId + "' failed: " + e.getMessage(), e);
    }
  }

  // =========================================================================================
  // max_prepared_transactions
  // =========================================================================================

  /** Checks every shard that answers; a shard that does not is checked before its first prepare. */
  void checkShardsAtStartup() {
    List<String> refused = new ArrayList<>();
    for (String shardId : shardAccess.shardMap().shards().keySet()) {
      try {
        int max = maxPreparedTransactions(shardId);
        if (max > 0) {
          checkedShards.add(shardId);
        } else {
          refused.add(shardId);
        }
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "Could not check max_prepared_transactions on shard '" + shardId
            + "' at startup (" + e.getMessage() + "); it will be checked before its first two-phase commit");
      }
    }
    if (!refused.isEmpty()) {
      throw preparedTransactionsDisabled(refused);
    }
  }

  private void requirePreparedTransactions(String shardId) {
    if (checkedShards.contains(shardId)) {
      return;
    }
    if (maxPreparedTransactions(shardId) <= 0) {
      throw preparedTransactionsDisabled(List.of(shardId));
    }
    checkedShards.add(shardId);
  }

  private int maxPreparedTransactions(String shardId) {
    try (Connection c = shardAccess.primaryConnection(shardId); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT current_setting('max_prepared_transactions')::int")) {
      rs.next();
      return rs.getInt(1);
    } catch (SQLException e) {
      throw new IllegalStateException("Could not read max_prepared_transactions on shard '" + shardId + "': "
          + e.getMessage(), e);
    }
  }

  private ShardingConfigurationException preparedTransactionsDisabled(List<String> shards) {
    return new ShardingConfigurationException("Persistence unit '" + shardAccess.unitName() + "': shard(s) "
        + shards + " run with max_prepared_transactions = 0, so cross-shard transactions (two-phase commit) cannot"
        + " prepare there. Set max_prepared_transactions to at least max_connections in postgresql.conf of every"
        + " shard primary and restart it, or set shardwise.tx.enabled = false if this application never writes"
        + " across shards.");
  }

  // =========================================================================================
  // Recovery
  // =========================================================================================

  /** What one recovery pass did. */
  public record RecoveryResult(int committed, int rolledBack, int skipped, List<String> unreachableShards) {}

  /**
   * Resolves every prepared transaction of ours that it may resolve: on every shard, from the log.
   *
   * @param graceMillis a gid of a live coordinator younger than this is left alone
   * @param staleAfterMillis a coordinator whose heartbeat is older than this is gone
   */
  public synchronized RecoveryResult recover(long graceMillis, long staleAfterMillis) {
    Set<String> live = log.liveCoordinators(staleAfterMillis);
    int committed = 0;
    int rolledBack = 0;
    int skipped = 0;
    List<String> unreachable = new ArrayList<>();
    Set<String> seen = new java.util.HashSet<>();
    for (String shardId : shardAccess.shardMap().shards().keySet()) {
      Map<String, Boolean> inDoubt;
      try {
        inDoubt = preparedOnShard(shardId, graceMillis);
      } catch (RuntimeException e) {
        unreachable.add(shardId);
        LOG.log(System.Logger.Level.WARNING, "Recovery could not list prepared transactions on shard '" + shardId
            + "': " + e.getMessage());
        continue;
      }
      seen.addAll(inDoubt.keySet());
      for (Map.Entry<String, Boolean> entry : inDoubt.entrySet()) {
        String gid = entry.getKey();
        String coordinator = coordinatorOf(gid);
        boolean mine = coordinatorId.equals(coordinator);
        boolean resolvable = mine ? !inFlight.contains(gid) : (entry.getValue() || !live.contains(coordinator));
        if (!resolvable) {
          skipped++;
          continue;
        }
        Decision decision = log.decide(gid, Decision.ABORT, "recovery:" + coordinatorId, List.of(shardId));
        try {
          finish(shardId, gid, decision == Decision.COMMIT);
          if (decision == Decision.COMMIT) {
            committed++;
          } else {
            rolledBack++;
          }
          LOG.log(System.Logger.Level.INFO, "Recovery: " + decision + " of in-doubt " + gid + " on shard '" + shardId
              + "'");
        } catch (RuntimeException e) {
          unreachable.add(shardId);
          LOG.log(System.Logger.Level.WARNING, "Recovery could not finish " + gid + " on shard '" + shardId + "': "
              + e.getMessage());
        }
      }
    }
    if (unreachable.isEmpty()) {
      log.purgeDecisions(seen, graceMillis);
    }
    return new RecoveryResult(committed, rolledBack, skipped, List.copyOf(unreachable));
  }

  /** Our prepared gids on a shard, each with whether it is older than the grace period. */
  private Map<String, Boolean> preparedOnShard(String shardId, long graceMillis) {
    Map<String, Boolean> gids = new LinkedHashMap<>();
    try (Connection c = shardAccess.primaryConnection(shardId);
        java.sql.PreparedStatement ps = c.prepareStatement("SELECT gid, prepared < now() - make_interval(secs => ?) "
            + "FROM pg_prepared_xacts WHERE database = current_database() AND gid LIKE 'sw:%' ORDER BY prepared")) {
      ps.setDouble(1, graceMillis / 1000.0);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          gids.put(rs.getString(1), rs.getBoolean(2));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
    return gids;
  }

  static String coordinatorOf(String gid) {
    int end = gid.lastIndexOf(':');
    return end > GID_PREFIX.length() ? gid.substring(GID_PREFIX.length(), end) : "";
  }

  // =========================================================================================
  // Participants
  // =========================================================================================

  private final class Participants implements CrossShardTransaction {
    private final Function<String, Session> opener;
    private final Map<String, Participant> byShard = new LinkedHashMap<>();

    Participants(Function<String, Session> opener) {
      this.opener = opener;
    }

    @Override
    public void on(Object key, Consumer<Session> work) {
      work.accept(participant(shardAccess.shardFor(key)).session);
    }

    @Override
    public <R> R from(Object key, Function<Session, R> work) {
      return work.apply(participant(shardAccess.shardFor(key)).session);
    }

    @Override
    public void onShard(String shardId, Consumer<Session> work) {
      shardAccess.shardMap().shard(shardId);
      work.accept(participant(shardId).session);
    }

    @Override
    public Set<String> shards() {
      return Set.copyOf(byShard.keySet());
    }

    private Participant participant(String shardId) {
      Participant p = byShard.get(shardId);
      if (p == null) {
        Session session = opener.apply(shardId);
        try {
          p = new Participant(shardId, session, session.beginTransaction());
        } catch (RuntimeException e) {
          session.close();
          throw e;
        }
        byShard.put(shardId, p);
      }
      return p;
    }

    void rollbackAll(RuntimeException cause) {
      for (Participant p : byShard.values()) {
        try {
          p.rollbackLocally();
        } catch (RuntimeException e) {
          cause.addSuppressed(e);
        }
      }
    }

    /** After a crash ({@link Error}) nothing is cleaned up beyond what a dying process would release. */
    void closeAll(boolean crashed) {
      for (Participant p : byShard.values()) {
        try {
          if (!crashed && !p.prepared && p.tx.isActive()) {
            p.rollbackLocally();
          }
        } catch (RuntimeException e) {
          LOG.log(System.Logger.Level.DEBUG, "Rollback on shard '" + p.shardId + "' failed: " + e.getMessage());
        } finally {
          p.session.close();
        }
      }
    }
  }

  private static final class Participant {
    final String shardId;
    final Session session;
    final Transaction tx;
    boolean prepared;
    boolean done;

    Participant(String shardId, Session session, Transaction tx) {
      this.shardId = shardId;
      this.session = session;
      this.tx = tx;
    }

    void prepare(String gid) {
      session.doWork(c -> {
        try (Statement s = c.createStatement()) {
          s.execute("PREPARE TRANSACTION '" + gid + "'");
        }
        // PostgreSQL answers PREPARE in an already failed transaction with a rollback, not an
        // error: make sure the transaction really is prepared before counting on it.
        try (java.sql.PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_prepared_xacts WHERE gid = ?")) {
          ps.setString(1, gid);
          try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
              throw new IllegalStateException("PREPARE TRANSACTION '" + gid + "' on shard '" + shardId
                  + "' rolled back instead: the transaction had already failed (an error caught inside the work?)");
            }
          }
        }
      });
      prepared = true;
      // The server-side transaction is now the prepared one; the connection is idle. Ending
      // Hibernate's transaction sends nothing (the driver skips ROLLBACK outside a transaction).
      tx.rollback();
    }

    void commitLocally() {
      tx.commit();
      done = true;
    }

    void rollbackLocally() {
      if (tx.isActive()) {
        tx.rollback();
      }
    }
  }
}
