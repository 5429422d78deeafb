package io.shardwise.hibernate.transaction.internal;

import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.ShardwiseException;
import io.shardwise.hibernate.internal.ShardFailures;
import io.shardwise.hibernate.transaction.CrossShardAbortedException;
import io.shardwise.hibernate.transaction.CrossShardTransaction;
import io.shardwise.hibernate.transaction.TransactionInDoubtException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import org.hibernate.FlushMode;
import org.hibernate.Session;
import org.hibernate.Transaction;

/**
 * Two-phase commit over shard primaries with PostgreSQL prepared transactions, the decision kept by
 * one participant's own local transaction.
 *
 * <h2>The protocol</h2>
 *
 * <p>Of the shards the work touched, the last one is the <em>decider</em>; it is never prepared.
 * When the work returns:
 *
 * <ol>
 *   <li>every participant flushes;
 *   <li>in one round trip, the decider's transaction sets {@code synchronous_commit = on} for itself,
 *       reads its own 64-bit id X ({@code pg_current_xact_id()}) and its server's incarnation, and
 *       makes X durable (see {@link #begin});
 *   <li>every other participant runs
 *       {@code PREPARE TRANSACTION 'sw:<coordinator>:<decider>:<incarnation>:<X>'} (see
 *       {@link GlobalTransactionId}); from then on only {@code COMMIT PREPARED} or
 *       {@code ROLLBACK PREPARED} ends it, across crashes and restarts;
 *   <li>the decider commits, in one phase: <b>this local commit is the commit point</b>;
 *   <li>{@code COMMIT PREPARED} on every other participant.
 * </ol>
 *
 * <p>If anything fails before step 4, the decider is rolled back (or simply never committed) and the
 * others are rolled back: {@link CrossShardAbortedException}. No write to the control database lies on
 * this path; the decision is durable exactly when the decider's own data is.
 *
 * <h2>Why a late coordinator cannot commit after recovery aborted</h2>
 *
 * <p>The outcome of the whole transaction is the outcome of X, and PostgreSQL itself keeps it:
 * {@code pg_xact_status(X)} on the decider answers committed, aborted or in progress. Recovery
 * resolves every prepared participant from that answer alone. While X is in progress the coordinator
 * is still at work, stalled, or gone with its connection half-open; once recovery may act (the
 * coordinator's heartbeat stopped, or the grace period passed) it ends the backend that holds X
 * ({@code pg_terminate_backend}), which aborts X, and reads the status again. An aborted transaction
 * can never commit: a coordinator that wakes up later sees its COMMIT fail, reads "aborted" and rolls
 * back whatever it prepared since. Nothing that a late coordinator could consult has been deleted,
 * because there is nothing to delete: the only record of the decision is X's status in the decider's
 * commit log. When the decider does not answer, recovery leaves the prepared transactions alone; it
 * never guesses. Nor does it when the answer could be about another transaction: X was made durable
 * before anything was prepared under it, so a crash of the decider cannot hand X out again, and a
 * decider that is no longer the server history that assigned X (failover, restore) is reported for
 * an operator instead of read.
 *
 * <h2>What recovery reads</h2>
 *
 * <p>Gids come from {@code pg_prepared_xacts}, which any role that can log in to a shard can fill.
 * Recovery considers only gids of the exact format above, owned by the role it connects as and
 * naming a shard of the current map; it logs every other {@code sw:} gid once and leaves it alone.
 * {@code COMMIT PREPARED} and {@code ROLLBACK PREPARED} take no parameter, so their literal is
 * rendered from the parsed parts ({@link GlobalTransactionId#sqlLiteral()}), never from the text read.
 *
 * <h2>A prepared transaction that is already gone</h2>
 *
 * <p>{@code COMMIT PREPARED} answering 42704 (no such prepared transaction) means someone finished it
 * first. That is normal when recovery raced the coordinator, and harmful when someone rolled it back
 * by hand. Every participant's own transaction id is known (read in the same round trip as its
 * {@code PREPARE}), so its outcome is checked with {@code pg_xact_status} instead of assumed.
 *
 * <h2>What this file owns</h2>
 *
 * <p>The protocol (the coordinator, its participants), the reading of a decider's outcome, the
 * finishing of a prepared transaction and the servers' requirements. {@link TwoPhaseRecovery} owns
 * recovery: finding the prepared transactions a coordinator left behind and resolving those it may.
 */
public final class TwoPhaseCommit {
  private static final System.Logger LOG = System.getLogger("io.shardwise.tx");
  private static final String UNDEFINED_PREPARED_TRANSACTION = "42704";
  /** How long ending a stalled decider backend may take before this attempt gives up (ms). */
  private static final long TERMINATE_WAIT_MS = 5_000;
  /**
   * PostgreSQL 17 added the {@code flush} argument of {@code pg_logical_emit_message}, which makes
   * the decider's transaction id durable in the same round trip (see {@link #begin}).
   */
  private static final int MIN_SERVER_VERSION = 170_000;

  /**
   * Step 2 as one statement (prepared once per connection): the materialized CTE runs first, so X is
   * assigned before the logical message is written and the record carries it; {@code set_config(...,
   * true)} is {@code SET LOCAL}.
   */
  private static final String BEGIN_DECIDER_SQL = "WITH x AS MATERIALIZED (SELECT pg_current_xact_id() AS xid,"
      + " set_config('synchronous_commit', 'on', true) AS synchronous_commit)"
      + " SELECT xid, " + GlobalTransactionId.INCARNATION_SQL + ", pg_logical_emit_message(false, 'shardwise', '', true)"
      + " FROM x";

  private final ShardAccess shardAccess;
  private final TxLog log;
  private final String coordinatorId;
  private final CrossShardService service;
  private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
  private final Set<String> checkedShards = ConcurrentHashMap.newKeySet();
  private final TwoPhaseRecovery recovery;

  TwoPhaseCommit(ShardAccess shardAccess, TxLog log, String coordinatorId, CrossShardService service) {
    this.shardAccess = shardAccess;
    this.log = log;
    this.coordinatorId = coordinatorId;
    this.service = service;
    this.recovery = new TwoPhaseRecovery(this, shardAccess, log, coordinatorId);
  }

  // =========================================================================================
  // The coordinator
  // =========================================================================================

  /** Runs {@code work} atomically over the shards it touches; see {@link CrossShardTransaction}. */
  public <R> R execute(Function<String, Session> opener, Function<CrossShardTransaction, R> work) {
    Participants participants = new Participants(opener);
    GlobalTransactionId id = null;
    boolean crashed = false;
    try {
      R result;
      try {
        result = work.apply(participants);
      } catch (RuntimeException e) {
        participants.rollbackAll(e);
        throw ShardFailures.ofCrossShard(e, participants.lastShard, shardAccess::refreshMap);
      }
      List<Participant> all = List.copyOf(participants.byShard.values());
      if (all.isEmpty()) {
        return result;
      }
      if (all.size() == 1) {
        Participant only = all.get(0);
        try {
          only.commitLocally();
        } catch (RuntimeException e) {
          throw ShardFailures.ofCrossShard(e, only.shardId, shardAccess::refreshMap);
        }
        return result;
      }
      Participant decider = all.get(all.size() - 1);
      List<Participant> others = all.subList(0, all.size() - 1);
      flushAll(all);
      id = begin(decider, all);
      inFlight.add(id.gid());
      prepareAll(id, others, decider);
      service.fault(FaultInjector.Point.AFTER_PREPARE, id.gid(), decider.shardId);
      commitDecider(id, decider, others);
      service.fault(FaultInjector.Point.AFTER_DECISION, id.gid(), decider.shardId);
      commitPrepared(id, others);
      return result;
    } catch (Error e) {
      crashed = true;
      throw e;
    } finally {
      participants.closeAll(crashed);
      if (id != null) {
        inFlight.remove(id.gid());
      }
    }
  }

  /**
   * Step 1. The work is over, so each session is switched to manual flushing once flushed: the
   * decider's commit then sends its COMMIT without a second flush (another dirty-checking pass over
   * every entity the work loaded, which finds nothing left to write).
   */
  private void flushAll(List<Participant> all) {
    for (Participant p : all) {
      try {
        p.session.flush();
        p.session.setHibernateFlushMode(FlushMode.MANUAL);
      } catch (RuntimeException e) {
        abort(null, all, e);
        throw aborted("(not started)", "flushing on shard '" + p.shardId + "' failed: " + e.getMessage(), e, p.shardId);
      }
    }
  }

  /**
   * Step 2, one round trip: the decider's transaction id (with the server history it belongs to)
   * names the whole transaction. Its commit is made synchronous. And the id is made durable before
   * any other shard is prepared under it: PostgreSQL does not write a transaction id to disk until
   * that transaction writes WAL that gets flushed, and after a crash it hands out again every id it
   * had not written; a prepared gid naming such an id would then be resolved from the status of
   * some later, unrelated transaction. A flushed WAL record (an empty logical message, which carries
   * the current transaction id like every record) rules that out.
   */
  private GlobalTransactionId begin(Participant decider, List<Participant> all) {
    try {
      requirePreparedTransactions(decider.shardId); // its server version, if startup could not check it
      String[] xidAndIncarnation = decider.session.doReturningWork(c -> {
        try (PreparedStatement ps = c.prepareStatement(BEGIN_DECIDER_SQL); ResultSet rs = ps.executeQuery()) {
          rs.next();
          return new String[] {rs.getString(1), rs.getString(2)};
        }
      });
      return new GlobalTransactionId(coordinatorId, decider.shardId, xidAndIncarnation[1],
          Long.parseUnsignedLong(xidAndIncarnation[0]));
    } catch (RuntimeException e) {
      abort(null, all, e);
      throw aborted("(not started)", "the deciding shard '" + decider.shardId + "' failed: " + e.getMessage(), e,
          decider.shardId);
    }
  }

  /** Step 3. */
  private void prepareAll(GlobalTransactionId id, List<Participant> others, Participant decider) {
    for (Participant p : others) {
      try {
        requirePreparedTransactions(p.shardId);
        service.fault(FaultInjector.Point.BEFORE_PREPARE, id.gid(), p.shardId);
        p.prepare(id);
      } catch (RuntimeException e) {
        abort(id, withDecider(others, decider), e);
        throw aborted(id.gid(), "shard '" + p.shardId + "' could not prepare: " + e.getMessage(), e, p.shardId);
      }
    }
  }

  /**
   * Step 4, the commit point. When COMMIT answers with an error, the decider's own transaction
   * status says what happened: it may have committed (the answer was lost), been ended by recovery
   * while this coordinator stalled, or refused the commit.
   */
  private void commitDecider(GlobalTransactionId id, Participant decider, List<Participant> others) {
    try {
      decider.tx.commit();
      return;
    } catch (RuntimeException commitFailed) {
      Outcome outcome;
      try {
        outcome = settle(id);
      } catch (RuntimeException unknown) {
        commitFailed.addSuppressed(unknown);
        throw inDoubt(id, others, commitFailed, "its deciding shard '" + decider.shardId + "' did not answer");
      }
      switch (outcome) {
        case COMMITTED -> LOG.log(System.Logger.Level.INFO, "Cross-shard transaction " + id + ": COMMIT on the"
            + " deciding shard reported " + commitFailed.getMessage() + ", but the transaction did commit");
        case ABORTED -> {
          abort(id, others, commitFailed);
          throw aborted(id.gid(), "its deciding shard '" + decider.shardId + "' did not commit (" + commitFailed.getMessage()
              + "); if this coordinator stalled, recovery ended that transaction before it could commit", commitFailed,
              decider.shardId);
        }
        default -> throw inDoubt(id, others, commitFailed, "the deciding shard '" + decider.shardId + "' reports its"
            + " transaction " + id.deciderXidText() + " as " + outcome);
      }
    }
  }

  /**
   * Step 5: a shard that cannot be reached now stays prepared, and recovery commits it there. A
   * shard whose prepared transaction someone else ended against the decision (or whose outcome
   * cannot be read) is reported after the others committed.
   */
  private void commitPrepared(GlobalTransactionId id, List<Participant> others) {
    ShardwiseException notAsDecided = null;
    for (Participant p : others) {
      try {
        finish(p.shardId, id, true, p.xid);
        service.fault(FaultInjector.Point.AFTER_COMMIT, id.gid(), p.shardId);
      } catch (AtomicityViolated | UnverifiedOutcome e) {
        if (notAsDecided == null) {
          notAsDecided = e;
        } else {
          notAsDecided.addSuppressed(e);
        }
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "Cross-shard transaction " + id + " is committed but shard '"
            + p.shardId + "' could not apply it yet (" + e.getMessage() + "); recovery will commit it there");
      }
    }
    if (notAsDecided != null) {
      throw notAsDecided;
    }
  }

  /**
   * Rolls back every participant: the decider and unprepared ones locally, prepared ones with
   * ROLLBACK PREPARED. Only the coordinator ever sends COMMIT to the decider, and it does not here,
   * so the decider's transaction cannot commit and rolling back the prepared ones is safe even when
   * its local rollback fails.
   */
  private void abort(GlobalTransactionId id, List<Participant> all, RuntimeException cause) {
    for (Participant p : all) {
      try {
        if (p.prepared) {
          finish(p.shardId, id, false, p.xid);
        } else {
          p.rollbackLocally();
        }
      } catch (AtomicityViolated e) {
        throw e;
      } catch (RuntimeException e) {
        if (cause != null) {
          cause.addSuppressed(e);
        }
        LOG.log(System.Logger.Level.WARNING, "Could not roll back " + (id == null ? "a cross-shard transaction" : id)
            + " on shard '" + p.shardId + "' (" + e.getMessage() + "); recovery will roll it back");
      }
    }
  }

  private static List<Participant> withDecider(List<Participant> others, Participant decider) {
    List<Participant> all = new ArrayList<>(others.size() + 1);
    all.add(decider); // first: its rollback aborts X before anything else happens
    all.addAll(others);
    return all;
  }

  /** {@link CrossShardAbortedException}, or {@code BucketMovedException} when a move's fence refused a write. */
  private RuntimeException aborted(String gid, String why, RuntimeException cause, String shardId) {
    return ShardFailures.aborted(gid, why, cause, shardId, shardAccess::refreshMap);
  }

  private static TransactionInDoubtException inDoubt(GlobalTransactionId id, List<Participant> others,
      RuntimeException cause, String why) {
    return new TransactionInDoubtException("Cross-shard transaction " + id + " is prepared on shards "
        + others.stream().map(p -> p.shardId).toList() + " but whether it committed is not known: " + why + " ("
        + cause.getMessage() + "). Its outcome is still all or nothing: recovery commits or rolls back the prepared"
        + " shards from the deciding shard's transaction " + id.deciderXidText() + " once that shard answers.",
        id.gid(), cause);
  }

  // =========================================================================================
  // Finishing prepared transactions, and checking that they finished as decided
  // =========================================================================================

  /** A participant ended against the decision: someone finished it outside Shardwise. */
  static final class AtomicityViolated extends ShardwiseException {
    private static final long serialVersionUID = 1L;

    AtomicityViolated(String message) {
      super(message);
    }
  }

  /** A prepared transaction is gone and its outcome could not be read. */
  static final class UnverifiedOutcome extends ShardwiseException {
    private static final long serialVersionUID = 1L;

    UnverifiedOutcome(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * COMMIT PREPARED or ROLLBACK PREPARED; tried up to three times, since a pooled connection may
   * have died with a server restart (the pool drops it and hands out another).
   *
   * @param participantXid the prepared transaction's own id, to verify its outcome if it is gone
   */
  void finish(String shardId, GlobalTransactionId id, boolean commit, long participantXid) {
    for (int attempt = 1; ; attempt++) {
      try {
        finishOnce(shardId, id, commit, participantXid);
        return;
      } catch (AtomicityViolated e) {
        throw e;
      } catch (RuntimeException e) {
        if (attempt == 3) {
          throw e;
        }
      }
    }
  }

  private void finishOnce(String shardId, GlobalTransactionId id, boolean commit, long participantXid) {
    String verb = commit ? "COMMIT PREPARED " : "ROLLBACK PREPARED ";
    try (Connection c = shardAccess.primaryConnection(shardId)) {
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        s.execute(verb + id.sqlLiteral());
        return;
      } catch (SQLException e) {
        if (!UNDEFINED_PREPARED_TRANSACTION.equals(e.getSQLState())) {
          throw e;
        }
      }
      // Someone finished it first: recovery, following the same decision, or a person, maybe not.
      Outcome outcome;
      try {
        outcome = statusOf(c, participantXid);
      } catch (SQLException e) {
        throw new UnverifiedOutcome(verb + id.sqlLiteral() + " on shard '" + shardId + "' found no such prepared"
            + " transaction, and its outcome (transaction " + Long.toUnsignedString(participantXid) + ") could not be"
            + " read: " + e.getMessage(), e);
      }
      Outcome expected = commit ? Outcome.COMMITTED : Outcome.ABORTED;
      if (outcome == expected) {
        return;
      }
      String what = "Cross-shard transaction " + id + " was decided " + (commit ? "COMMIT" : "ROLLBACK") + ", but on"
          + " shard '" + shardId + "' its prepared transaction is gone and its own transaction "
          + Long.toUnsignedString(participantXid) + " is " + outcome;
      if (outcome == Outcome.COMMITTED || outcome == Outcome.ABORTED) {
        throw new AtomicityViolated(what + ": someone ran " + (commit ? "ROLLBACK" : "COMMIT") + " PREPARED outside"
            + " Shardwise. The transaction is half applied; repair shard '" + shardId + "' by hand.");
      }
      throw new UnverifiedOutcome(what + "; check that transaction on shard '" + shardId + "' by hand.", null);
    } catch (SQLException e) {
      throw new IllegalStateException(verb + id.sqlLiteral() + " on shard '" + shardId + "' failed: " + e.getMessage(), e);
    }
  }

  // =========================================================================================
  // The decider's transaction status
  // =========================================================================================

  /**
   * {@code pg_xact_status}: FORGOTTEN is its NULL, a transaction older than the server's commit log;
   * OTHER_HISTORY means the decider's server is no longer the history that assigned the id (a
   * failover, a restore, a rebuilt cluster), where the same id may name another transaction.
   */
  enum Outcome { COMMITTED, ABORTED, IN_PROGRESS, FORGOTTEN, OTHER_HISTORY }

  /**
   * The final outcome of the decider's transaction: read, and if it is still in progress, its
   * backend ended (which aborts it unless its COMMIT got there first) and read again. IN_PROGRESS
   * only if the backend did not end within {@link #TERMINATE_WAIT_MS}.
   *
   * @throws RuntimeException when the shard does not answer: then nothing can be known
   */
  /** Whether this coordinator is still running the transaction {@code gid} (recovery leaves it alone). */
  boolean inFlight(String gid) {
    return inFlight.contains(gid);
  }

  Outcome settle(GlobalTransactionId id) {
    String shardId = id.deciderShard();
    long xid = id.deciderXid();
    try (Connection c = shardAccess.primaryConnection(shardId)) {
      c.setAutoCommit(true);
      Outcome outcome = deciderStatus(c, id);
      if (outcome != Outcome.IN_PROGRESS) {
        return outcome;
      }
      try (PreparedStatement ps = c.prepareStatement("SELECT pg_terminate_backend(pid, ?) FROM pg_stat_activity"
          + " WHERE backend_xid = ?::xid8::xid AND usename = current_user")) {
        ps.setLong(1, TERMINATE_WAIT_MS);
        ps.setString(2, Long.toUnsignedString(xid));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            LOG.log(System.Logger.Level.INFO, "Ended the backend of transaction " + Long.toUnsignedString(xid)
                + " on shard '" + shardId + "' (" + (rs.getBoolean(1) ? "it exited" : "it has not exited yet") + ")");
          }
        }
      }
      return deciderStatus(c, id);
    } catch (SQLException e) {
      throw new IllegalStateException("Could not read the status of transaction " + Long.toUnsignedString(xid)
          + " on shard '" + shardId + "': " + e.getMessage(), e);
    }
  }

  /** The decider transaction's status, if the decider's server is still the history that assigned its id. */
  private static Outcome deciderStatus(Connection c, GlobalTransactionId id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT incarnation, CASE WHEN incarnation = ? THEN"
        + " pg_xact_status(?::xid8) END FROM (SELECT " + GlobalTransactionId.INCARNATION_SQL + " AS incarnation) i")) {
      ps.setString(1, id.deciderIncarnation());
      ps.setString(2, id.deciderXidText());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (!id.deciderIncarnation().equals(rs.getString(1))) {
          return Outcome.OTHER_HISTORY;
        }
        return outcome(rs.getString(2));
      }
    }
  }

  private static Outcome statusOf(Connection c, long xid) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_xact_status(?::xid8)")) {
      ps.setString(1, Long.toUnsignedString(xid));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return outcome(rs.getString(1));
      }
    }
  }

  private static Outcome outcome(String status) throws SQLException {
    if (status == null) {
      return Outcome.FORGOTTEN;
    }
    return switch (status) {
      case "committed" -> Outcome.COMMITTED;
      case "aborted" -> Outcome.ABORTED;
      case "in progress" -> Outcome.IN_PROGRESS;
      default -> throw new SQLException("pg_xact_status answered '" + status + "'");
    };
  }

  /**
   * Runs {@code sql} (statements separated by ';', sent in one round trip, each run only if the
   * ones before succeeded) and returns the first column of the first row of the first result set.
   */
  private static String firstValue(Statement s, String sql) throws SQLException {
    boolean isResultSet = s.execute(sql);
    while (true) {
      if (isResultSet) {
        try (ResultSet rs = s.getResultSet()) {
          if (!rs.next()) {
            throw new SQLException("'" + sql + "' returned no row");
          }
          return rs.getString(1);
        }
      }
      if (s.getUpdateCount() == -1) {
        throw new SQLException("'" + sql + "' returned no result set");
      }
      isResultSet = s.getMoreResults();
    }
  }

  // =========================================================================================
  // Server requirements: max_prepared_transactions, PostgreSQL 17
  // =========================================================================================

  /** Checks every shard that answers; a shard that does not is checked before its first prepare. */
  void checkShardsAtStartup() {
    List<String> refused = new ArrayList<>();
    List<String> tooOld = new ArrayList<>();
    for (String shardId : shardAccess.shardMap().shards().keySet()) {
      try {
        int[] settings = serverSettings(shardId);
        if (settings[1] < MIN_SERVER_VERSION) {
          tooOld.add(shardId);
        } else if (settings[0] > 0) {
          checkedShards.add(shardId);
        } else {
          refused.add(shardId);
        }
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "Could not check max_prepared_transactions on shard '" + shardId
            + "' at startup (" + e.getMessage() + "); it will be checked before its first two-phase commit");
      }
    }
    if (!tooOld.isEmpty()) {
      throw serverTooOld(tooOld);
    }
    if (!refused.isEmpty()) {
      throw preparedTransactionsDisabled(refused);
    }
  }

  private void requirePreparedTransactions(String shardId) {
    if (checkedShards.contains(shardId)) {
      return;
    }
    int[] settings = serverSettings(shardId);
    if (settings[1] < MIN_SERVER_VERSION) {
      throw serverTooOld(List.of(shardId));
    }
    if (settings[0] <= 0) {
      throw preparedTransactionsDisabled(List.of(shardId));
    }
    checkedShards.add(shardId);
  }

  /** {max_prepared_transactions, server_version_num}. */
  private int[] serverSettings(String shardId) {
    try (Connection c = shardAccess.primaryConnection(shardId); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT current_setting('max_prepared_transactions')::int,"
            + " current_setting('server_version_num')::int")) {
      rs.next();
      return new int[] {rs.getInt(1), rs.getInt(2)};
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

  private ShardingConfigurationException serverTooOld(List<String> shards) {
    return new ShardingConfigurationException("Persistence unit '" + shardAccess.unitName() + "': shard(s) "
        + shards + " run PostgreSQL older than 17. Cross-shard transactions decide by the 64-bit id of one"
        + " shard's own transaction and make that id durable with pg_logical_emit_message(..., flush => true),"
        + " which PostgreSQL 17 added. Upgrade those shards, or set shardwise.tx.enabled = false if this"
        + " application never writes across shards.");
  }

  // =========================================================================================
  // Recovery (TwoPhaseRecovery resolves what a coordinator left prepared)
  // =========================================================================================

  /**
   * What one recovery pass did.
   *
   * @param untrusted {@code sw:} gids it left alone because they are not of Shardwise's exact format,
   *     not owned by the role it connects as, or name a shard the map does not have; as
   *     {@code shard: "gid"} with the gid escaped for printing
   */
  public record RecoveryResult(int committed, int rolledBack, int skipped, List<String> unreachableShards,
      List<String> untrusted) {}

  /**
   * Resolves every prepared transaction of ours that it may resolve: on every shard, from the
   * outcome of its decider's transaction.
   *
   * @param graceMillis a gid of a live coordinator younger than this is left alone
   * @param staleAfterMillis a coordinator whose heartbeat is older than this is gone
   */
  public RecoveryResult recover(long graceMillis, long staleAfterMillis) {
    return recovery.recover(graceMillis, staleAfterMillis);
  }

  // =========================================================================================
  // Participants
  // =========================================================================================

  private final class Participants implements CrossShardTransaction {
    private final Function<String, Session> opener;
    private final Map<String, Participant> byShard = new LinkedHashMap<>();
    /** The shard whose session the work was last given, for failure messages. */
    String lastShard;

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
      lastShard = shardId;
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
    /** Its own transaction id, read when it prepared. */
    long xid;

    Participant(String shardId, Session session, Transaction tx) {
      this.shardId = shardId;
      this.session = session;
      this.tx = tx;
    }

    void prepare(GlobalTransactionId id) {
      xid = session.doReturningWork(c -> {
        try (Statement s = c.createStatement()) {
          // One round trip. PostgreSQL answers PREPARE in an already failed transaction with a
          // rollback, not an error; the SELECT before it fails there, and then PREPARE never runs.
          long txid = Long.parseUnsignedLong(firstValue(s, "SELECT pg_current_xact_id(); PREPARE TRANSACTION "
              + id.sqlLiteral()));
          io.shardwise.hibernate.internal.jdbc.ShardConnection.transactionPrepared(c);
          return txid;
        }
      });
      prepared = true;
      // The server-side transaction is now the prepared one; the connection is idle. Ending
      // Hibernate's transaction sends nothing (the driver skips ROLLBACK outside a transaction).
      tx.rollback();
    }

    void commitLocally() {
      tx.commit();
    }

    void rollbackLocally() {
      if (tx.isActive()) {
        tx.rollback();
      }
    }
  }
}
