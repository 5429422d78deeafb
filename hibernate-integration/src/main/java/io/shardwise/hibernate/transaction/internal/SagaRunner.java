package io.shardwise.hibernate.transaction.internal;

import io.shardwise.hibernate.ShardUnavailableException;
import io.shardwise.hibernate.ShardwiseException;
import io.shardwise.hibernate.internal.ShardFailures;
import io.shardwise.hibernate.ShardwiseObjectsMissingException;
import io.shardwise.hibernate.transaction.SagaDefinition;
import io.shardwise.hibernate.transaction.SagaOutcome;
import io.shardwise.hibernate.ShardwiseDdl;
import io.shardwise.hibernate.internal.jdbc.OwnObjects;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.hibernate.Session;
import org.hibernate.Transaction;

/**
 * Runs sagas and resumes them after a crash.
 *
 * <h2>Exactly-once steps</h2>
 *
 * <p>The saga log lives in the control database, a step's effect on a shard: the two cannot commit
 * together. So every step's local transaction first takes a transaction-scoped advisory lock on
 * (saga, step), then inserts a marker row {@code shardwise.saga_applied(saga_id, step, 'F')} on its
 * shard; if the marker exists, the step was applied before (the log just did not learn it) and is
 * skipped. A compensation does the same with kind {@code 'C'}, and undoes only a step whose
 * {@code 'F'} marker exists; a forward step whose {@code 'C'} marker exists refuses to run. The
 * lock makes these checks race-free between a slow runner and recovery.
 *
 * <h2>The log</h2>
 *
 * <p>{@code shardwise.saga(state, next_step)} advances after each step; a crash anywhere leaves it
 * at or behind the truth, never ahead, and the markers absorb the replay. RUNNING resumes forward
 * from {@code next_step}; COMPENSATING resumes undoing from {@code next_step} down to 0.
 */
public final class SagaRunner {
  private static final System.Logger LOG = System.getLogger("io.shardwise.saga");
  private record Registered(SagaDefinition definition, Function<String, Session> opener) {}

  private static final class StepFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StepFailed(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private final ShardAccess shardAccess;
  private final TxLog log;
  private final String coordinatorId;
  private final CrossShardService service;
  private final int maxAttempts;
  private final long backoffMs;
  private final Map<String, Registered> definitions = new ConcurrentHashMap<>();
  private final Set<String> inFlight = ConcurrentHashMap.newKeySet();
  private final java.util.concurrent.atomic.AtomicLong resumedByRecovery = new java.util.concurrent.atomic.AtomicLong();
  private final Set<String> markerTables = ConcurrentHashMap.newKeySet();
  private final boolean createMarkerTables;

  SagaRunner(ShardAccess shardAccess, TxLog log, String coordinatorId, CrossShardService service, int maxAttempts,
      long backoffMs, boolean createMarkerTables) {
    this.createMarkerTables = createMarkerTables;
    this.shardAccess = shardAccess;
    this.log = log;
    this.coordinatorId = coordinatorId;
    this.service = service;
    this.maxAttempts = maxAttempts;
    this.backoffMs = backoffMs;
  }

  public void register(SagaDefinition definition, Function<String, Session> opener) {
    definitions.put(definition.name(), new Registered(definition, opener));
  }

  public String state(String sagaId) {
    TxLog.SagaRow row = log.saga(sagaId);
    return row == null ? null : row.state();
  }

  public SagaOutcome run(String name, String payload) {
    Registered registered = definitions.get(name);
    if (registered == null) {
      throw new IllegalArgumentException("No saga named '" + name + "' is registered (registered: "
          + definitions.keySet() + "); call shards.sagas().register(definition) at startup");
    }
    String given = payload == null ? "" : payload;
    // a missing marker table is a configuration error, not a failed step: refused before the log
    // shows the saga, with the SQL to run, instead of compensating
    for (SagaDefinition.Step step : registered.definition().steps()) {
      try {
        ensureMarkerTable(shardAccess.shardFor(step.shardKey().apply(given)));
      } catch (ShardwiseObjectsMissingException missing) {
        throw missing;
      } catch (RuntimeException later) {
        // a bad key or a shard that is down: the step meets it itself, and retries or compensates as usual
      }
    }
    String id = UUID.randomUUID().toString();
    inFlight.add(id); // before the log shows it, so that recovery never takes up a saga being started
    try {
      log.sagaStarted(id, name, payload == null ? "" : payload, coordinatorId);
    } catch (RuntimeException e) {
      inFlight.remove(id);
      throw e;
    }
    return drive(id, registered, payload == null ? "" : payload, "RUNNING", 0);
  }

  // --- driving ------------------------------------------------------------------------------

  /** Drives a saga this runner has claimed (its id is in {@code inFlight}); releases the claim at the end. */
  private SagaOutcome drive(String id, Registered registered, String payload, String state, int next) {
    try {
      var steps = registered.definition().steps();
      String failure = null;
      if (state.equals("RUNNING")) {
        for (int i = next; i < steps.size(); i++) {
          int attempts;
          try {
            attempts = withRetries(id, i, steps.get(i), registered, payload, true);
          } catch (StepFailed f) {
            failure = f.getMessage();
            log.sagaStep(id, i, steps.get(i).name(), "FAILED", maxAttempts, failure);
            advance(id, "COMPENSATING", i, failure);
            state = "COMPENSATING";
            next = i;
            break;
          }
          log.sagaStep(id, i, steps.get(i).name(), "DONE", attempts, null);
          advance(id, "RUNNING", i + 1, null);
        }
        if (state.equals("RUNNING")) {
          advance(id, "COMPLETED", steps.size(), null);
          return new SagaOutcome(id, "COMPLETED", null);
        }
      }
      for (int j = Math.min(next, steps.size() - 1); j >= 0; j--) {
        int attempts;
        try {
          attempts = withRetries(id, j, steps.get(j), registered, payload, false);
        } catch (StepFailed f) {
          LOG.log(System.Logger.Level.WARNING, "Saga " + id + " could not compensate step " + j + " yet ("
              + f.getMessage() + "); recovery will retry");
          return new SagaOutcome(id, "COMPENSATING", failure != null ? failure : f.getMessage());
        }
        log.sagaStep(id, j, steps.get(j).name(), "COMPENSATED", attempts, null);
        advance(id, "COMPENSATING", j - 1, failure);
      }
      advance(id, "COMPENSATED", -1, failure);
      return new SagaOutcome(id, "COMPENSATED", failure);
    } finally {
      inFlight.remove(id);
    }
  }

  /**
   * Logs the saga's new state, if this runner still owns it. Another instance takes a saga over only
   * when this one looked gone (its heartbeat stopped, e.g. during a long pause); from then on the
   * other instance drives it and decides its outcome, and this runner must stop rather than report one.
   */
  private void advance(String id, String state, int nextStep, String error) {
    if (!log.sagaState(id, coordinatorId, state, nextStep, error)) {
      throw new ShardwiseException("Saga " + id + " was taken over by another instance while this one was not"
          + " heard from (its coordinator heartbeat stopped); that instance finishes it and decides its outcome."
          + " Read it with Sagas.state(\"" + id + "\").");
    }
  }

  /** Runs a step or its compensation until it succeeds, retrying transient failures with backoff. */
  private int withRetries(String id, int index, SagaDefinition.Step step, Registered registered, String payload,
      boolean forward) {
    // Compensations must succeed eventually: they get the same retries here and more in recovery.
    for (int attempt = 1; ; attempt++) {
      try {
        apply(id, index, step, registered, payload, forward);
        return attempt;
      } catch (StepFailed f) {
        throw f;
      } catch (RuntimeException e) {
        if (!ShardFailures.retryable(e) || attempt >= maxAttempts) {
          throw new StepFailed((forward ? "step " : "compensation of step ") + index + " (" + step.name() + ") failed"
              + (attempt > 1 ? " after " + attempt + " attempts" : "") + ": " + rootMessage(e), e);
        }
        sleepBackoff(attempt);
      }
    }
  }

  private void apply(String id, int index, SagaDefinition.Step step, Registered registered, String payload,
      boolean forward) {
    String shardId = shardAccess.shardFor(step.shardKey().apply(payload));
    ensureMarkerTable(shardId);
    try (Session session = registered.opener().apply(shardId)) {
      Transaction tx = session.beginTransaction();
      try {
        boolean run = session.doReturningWork(c -> claim(c, id, index, forward));
        if (run) {
          (forward ? step.action() : step.compensation()).accept(session, payload);
        }
        tx.commit();
      } catch (RuntimeException | Error e) {
        if (tx.isActive()) {
          try {
            tx.rollback();
          } catch (RuntimeException suppressed) {
            e.addSuppressed(suppressed);
          }
        }
        if (e instanceof RuntimeException re) {
          // a fenced step refreshes the router, so that its retry goes to the bucket's new owner
          throw ShardFailures.ofUnitOfWork(re, shardId, shardAccess::refreshMap);
        }
        throw e;
      }
    }
    if (forward) {
      service.fault(FaultInjector.Point.AFTER_SAGA_STEP, id + "#" + index, shardId);
    }
  }

  /**
   * In the step's transaction: whether to run it. Makes its commit synchronous, locks (saga, step),
   * then checks and writes the markers; the effect commits or rolls back together with them.
   */
  private static boolean claim(Connection c, String id, int index, boolean forward) throws SQLException {
    // The step's commit records that it ran (its marker), and the saga log moves past it once the
    // commit returns: it must be durable by then, whatever the server's default.
    try (PreparedStatement lock = c.prepareStatement(
        "SET LOCAL synchronous_commit = on; SELECT pg_advisory_xact_lock(hashtext(?), ?)")) {
      lock.setString(1, id);
      lock.setInt(2, index);
      lock.execute();
    }
    boolean applied = marker(c, id, index, "F");
    boolean compensated = marker(c, id, index, "C");
    if (forward) {
      if (compensated) {
        throw new StepFailed("step " + index + " of saga " + id + " was compensated already and cannot run", null);
      }
      if (applied) {
        return false;
      }
      insertMarker(c, id, index, "F");
      return true;
    }
    if (compensated) {
      return false;
    }
    insertMarker(c, id, index, "C");
    return applied;
  }

  private static boolean marker(Connection c, String id, int index, String kind) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "SELECT 1 FROM shardwise.saga_applied WHERE saga_id = ? AND step = ? AND kind = ?")) {
      ps.setString(1, id);
      ps.setInt(2, index);
      ps.setString(3, kind);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  private static void insertMarker(Connection c, String id, int index, String kind) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "INSERT INTO shardwise.saga_applied (saga_id, step, kind) VALUES (?, ?, ?)")) {
      ps.setString(1, id);
      ps.setInt(2, index);
      ps.setString(3, kind);
      ps.executeUpdate();
    }
  }

  private void ensureMarkerTable(String shardId) {
    if (markerTables.contains(shardId)) {
      return;
    }
    try (Connection c = shardAccess.primaryConnection(shardId)) {
      OwnObjects.ensure(c, createMarkerTables, "shard '" + shardId + "'", ShardwiseDdl.Feature.SAGA_MARKERS);
      markerTables.add(shardId);
    } catch (SQLException e) {
      throw new ShardwiseException("Could not " + (createMarkerTables ? "create" : "check") + " shardwise.saga_applied"
          + " on shard '" + shardId + "': " + e.getMessage(), e);
    }
  }

  // --- recovery -------------------------------------------------------------------------

  /** How many sagas recovery has taken up in this runner (for operators and tests). */
  public long resumedByRecovery() {
    return resumedByRecovery.get();
  }

  /**
   * Resumes the unfinished sagas that no live runner is driving and whose definition is registered.
   * The list is a snapshot: before driving a saga, recovery re-reads it, decides from that fresh row
   * whether it may take it (its own, not being run here, or its coordinator's heartbeat stopped), and
   * claims it with a conditional update on exactly that row. A saga another instance took over, or
   * that its runner moved on, since the snapshot is left alone.
   */
  void recover(long staleAfterMillis) {
    var unfinished = log.unfinishedSagas();
    if (unfinished.isEmpty()) {
      return;
    }
    Set<String> live = log.liveCoordinators(staleAfterMillis);
    for (TxLog.SagaRow row : unfinished) {
      Registered registered = definitions.get(row.name());
      if (registered == null || (!coordinatorId.equals(row.coordinator()) && live.contains(row.coordinator()))) {
        continue;
      }
      if (!inFlight.add(row.id())) {
        continue; // a runner of this instance is driving it right now
      }
      boolean driving = false;
      try {
        service.fault(FaultInjector.Point.BEFORE_SAGA_CLAIM, row.id(), null);
        TxLog.SagaRow fresh = log.saga(row.id());
        boolean stillOpen = fresh != null && (fresh.state().equals("RUNNING") || fresh.state().equals("COMPENSATING"));
        boolean mayTake = stillOpen && (coordinatorId.equals(fresh.coordinator()) || !live.contains(fresh.coordinator()));
        if (!mayTake || !log.claimSaga(fresh, coordinatorId)) {
          continue;
        }
        driving = true;
        resumedByRecovery.incrementAndGet();
        SagaOutcome outcome = drive(row.id(), registered, fresh.payload(), fresh.state(), fresh.nextStep());
        LOG.log(System.Logger.Level.INFO, "Recovery resumed saga " + row.id() + " (" + row.name() + ") from "
            + fresh.state() + " at step " + fresh.nextStep() + ": " + outcome.state());
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "Recovery could not resume saga " + row.id() + ": " + e.getMessage());
      } finally {
        if (!driving) {
          inFlight.remove(row.id()); // drive() releases it otherwise
        }
      }
    }
  }

  // ---------------------------------------------------------------------------------------

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root == e ? String.valueOf(e.getMessage()) : e.getMessage() + " (" + root.getMessage() + ")";
  }

  private void sleepBackoff(int attempt) {
    long delay = Math.min(backoffMs << Math.min(attempt - 1, 10), 2_000);
    try {
      Thread.sleep(delay);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ShardwiseException("Interrupted while retrying a saga step", e);
    }
  }
}
