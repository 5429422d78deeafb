package io.shardwise.hibernate.resharding.internal;

import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.internal.jdbc.DriverConnections;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.internal.jdbc.ServerTimeouts;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.resharding.ReshardObject;
import io.shardwise.hibernate.resharding.ReshardPhase;
import io.shardwise.hibernate.resharding.ReshardProgress;
import io.shardwise.hibernate.resharding.ReshardWorkflow;
import io.shardwise.hibernate.resharding.Resharding;
import io.shardwise.hibernate.resharding.ReshardingException;
import io.shardwise.hibernate.routing.ControlDatabase;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * What every phase of a move shares: the control database, the moves' records ({@link WorkflowStore}),
 * the credentials and timeouts of the move's own connections to the shards, and the steps more than one
 * phase takes: the marker round trip (has the other side applied everything?), the staged map change's
 * name and its settling after a dead mover, the names and removal of the reverse path, the copy holders
 * recorded in the shard map, the wait for the routers' acknowledgement, progress reports and failures.
 * {@link Mover} keeps the workflow's state machine; {@link CopyPhase}, {@link WriteSwitch},
 * {@link WriteRollback} and {@link Cleanup} each own one stretch of it.
 */
abstract class MoveSteps {
  static final System.Logger LOG = System.getLogger("io.shardwise.resharding");
  /** The least time between announcing a staged map to the routers and freezing writes (see {@link #awaitStagedLead}). */
  static final long STAGED_LEAD_MS = 250;
  static final long PROGRESS_INTERVAL_MS = 250;
  /** How often the copy's sync state is polled (cheap: one catalog query on the target). */
  static final long COPY_POLL_MS = 25;

  final ControlDatabase control;
  final WorkflowStore store;
  final String user;
  final String password;
  final ShardwiseConfig.Resharding settings;
  final long routerLeaseMs;
  /** The timeouts of the move's own connections to the shards. */
  final ServerTimeouts shardTimeouts;

  /** Reads what every phase needs from the persistence unit's configuration. */
  MoveSteps(ShardwiseConfig config) {
    if (config.controlUrl() == null) {
      throw new ReshardingException("Online resharding needs the shard map in a control database: set "
          + io.shardwise.hibernate.ShardwiseSettings.CONTROL_URL + " (persistence unit '" + config.unitName() + "')");
    }
    this.control = config.controlDatabase();
    ShardwiseConfig.ControlTimeouts timeouts = config.controlDatabaseTimeouts();
    this.store = new WorkflowStore(config.controlUrl(), config.user(), config.password(), new ServerTimeouts(
        timeouts.lockTimeoutMs(), timeouts.statementTimeoutMs(), ShardwiseSettings.CONTROL_LOCK_TIMEOUT + ", "
        + ShardwiseSettings.CONTROL_STATEMENT_TIMEOUT));
    this.shardTimeouts = new ServerTimeouts(timeouts.lockTimeoutMs(), config.resharding().statementTimeoutMs(),
        ShardwiseSettings.CONTROL_LOCK_TIMEOUT + ", " + ShardwiseSettings.RESHARD_STATEMENT_TIMEOUT);
    this.user = config.user();
    this.password = config.password();
    this.settings = config.resharding();
    this.routerLeaseMs = config.routerLeaseMs();
  }

  /** A phase working with the same control database, workflow store and settings as {@code shared}. */
  MoveSteps(MoveSteps shared) {
    this.control = shared.control;
    this.store = shared.store;
    this.user = shared.user;
    this.password = shared.password;
    this.settings = shared.settings;
    this.routerLeaseMs = shared.routerLeaseMs;
    this.shardTimeouts = shared.shardTimeouts;
  }

  // ---------------------------------------------------------------------------------------------
  // Markers, the freeze's statements, staged map changes, the reverse path
  // ---------------------------------------------------------------------------------------------

  /** Writes a marker on the source and waits until the target has it; false after {@code timeoutMillis}. */
  static boolean markerRoundTrip(ReshardWorkflow w, Connection source, Connection target, long timeoutMillis)
      throws SQLException {
    long seq = Fences.writeMarker(source, w.id(), w.source());
    return awaitMarker(w, target, w.source(), seq, System.nanoTime() + timeoutMillis * 1_000_000);
  }

  static boolean awaitMarker(ReshardWorkflow w, Connection target, String origin, long seq, long deadlineNanos)
      throws SQLException {
    try (PreparedStatement ps = target.prepareStatement("SELECT seq FROM " + Fences.SCHEMA + ".marker WHERE "
        + "workflow_id = ? AND origin = ?")) {
      ps.setString(1, w.id());
      ps.setString(2, origin);
      while (true) {
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next() && rs.getLong(1) >= seq) {
            return true;
          }
        }
        if (System.nanoTime() > deadlineNanos) {
          return false;
        }
        java.util.concurrent.locks.LockSupport.parkNanos(200_000);
      }
    }
  }

  /**
   * Waits until {@link #STAGED_LEAD_MS} have passed since the next map was announced: the routers'
   * time to open connections to the shard that gains the buckets. Usually over already (setting
   * up the reverse path takes longer); never inside the freeze.
   */
  static void awaitStagedLead(long announcedAt) {
    long left = STAGED_LEAD_MS - (System.nanoTime() - announcedAt) / 1_000_000;
    if (left > 0) {
      pause(left);
    }
  }

  /**
   * Warms each backend's catalog caches for the statements of a freeze (the write switch or its
   * rollback), so that they cost no cold start while writes wait.
   */
  static void warmFreezeStatements(String id, Connection source, Connection target, Connection controlConnection)
      throws SQLException {
    for (Connection shard : List.of(source, target)) {
      Sql.queryText(shard, "SELECT count(*) FROM " + Fences.SCHEMA + ".fence WHERE workflow_id = ?", id);
      Sql.queryText(shard, "SELECT count(*) FROM " + Fences.SCHEMA + ".marker WHERE workflow_id = ?", id);
      Sql.execute(shard, "UPDATE " + Fences.SCHEMA + ".fence SET state = state WHERE false");
    }
    Sql.execute(controlConnection, "SELECT version FROM shardwise.map_version", "SELECT count(*) FROM shardwise.bucket",
        "SELECT id FROM shardwise.shard", "UPDATE shardwise.bucket SET shard_id = shard_id WHERE false");
  }

  /**
   * After a map change failed without a server's answer, the version that gave the buckets to
   * {@code owner} (the target in a switch, the source in its rollback), read back; else -1.
   */
  long flippedVersion(ReshardWorkflow w, RuntimeException e, String owner) {
    SQLException cause = e.getCause() instanceof SQLException sql ? sql : null;
    String state = cause == null ? null : cause.getSQLState();
    if (state != null && !state.startsWith("08")) {
      return -1;   // the server answered with an error: the statement, and its transaction, failed
    }
    // a staged change rolled back now can no longer commit; one that is gone has committed (or was never prepared)
    control.abortStaged(stagedName(w));
    ShardMap now = control.load();
    return w.buckets().stream().allMatch(b -> now.ownerOf(b).equals(owner)) ? now.version() : -1;
  }

  static void unlock(Connection source, ReshardWorkflow w) throws SQLException {
    Sql.queryText(source, "SELECT pg_advisory_unlock(?)", w.lockKey());
  }

  /** The name of the prepared transaction holding a switch's staged map change. */
  static String stagedName(ReshardWorkflow w) {
    return "shardwise-switch-" + w.id();
  }

  /**
   * Rolls back the staged map change of {@code id}'s write switch (or its rollback) if a mover that
   * died left it prepared, and returns the move's record. The change is still prepared only if it was
   * never committed (the record says {@code switched} only after the commit), so rolling it back
   * loses nothing; {@code resume} or {@code cancel} then finish or undo the switch from the fences.
   * A change whose mover is still connected (a switch in progress) is left alone. What {@code status},
   * {@code resume}, {@code cancel} and {@code rollback} do first: the prepared transaction holds the
   * map's rows, so every change of the map would wait behind it.
   */
  ReshardWorkflow settleStaged(String id) {
    ReshardWorkflow w = store.load(id);
    if (w.phase() == ReshardPhase.SWITCHING_WRITES || w.phase() == ReshardPhase.ROLLING_BACK_WRITES) {
      if (control.abortStagedOfDeadProcess(stagedName(w), List.of(switchConnectionName(w.id(), "switch"),
          switchConnectionName(w.id(), "rollback")))) {
        LOG.log(System.Logger.Level.WARNING, "move " + id + ": rolled back the staged shard map change "
            + stagedName(w) + " left prepared by a mover that died in phase " + w.phase());
      }
    }
    return w;
  }

  /** The application name of the control-database connection a write switch (or its rollback) holds while it runs. */
  static String switchConnectionName(String id, String kind) {
    return "shardwise-reshard-" + id + "-" + kind;
  }

  static String reversePublication(ReshardWorkflow w) {
    return "shardwise_rpub_" + w.id();
  }

  /** The reverse subscription on the source; its slot on the target has the same name. */
  static String reverseSubscription(ReshardWorkflow w) {
    return "shardwise_rsub_" + w.id();
  }

  /** Drops the reverse subscription (and through it its slot), any slot left of it, and the reverse publication. */
  void dropReverse(ReshardWorkflow w, Connection source, Connection target) throws SQLException {
    String subscription = reverseSubscription(w);
    Replication.dropSubscription(source, subscription);
    store.dropped(w.id(), w.source(), "subscription", subscription);
    Replication.dropSlots(target, Replication.slotsOf(target, subscription, -1));
    store.dropped(w.id(), w.target(), "slot", subscription);
    Replication.dropPublication(target, reversePublication(w));
    store.dropped(w.id(), w.target(), "publication", reversePublication(w));
  }

  // ---------------------------------------------------------------------------------------------
  // The shard map's copy holders and the routers' acknowledgement
  // ---------------------------------------------------------------------------------------------

  /**
   * Records in the shard map that {@code holder} holds a second copy of the move's buckets (null:
   * that no shard does). Scatter-gather reads such buckets from their read owner only.
   */
  long recordCopies(ReshardWorkflow w, String holder) {
    Map<Integer, String> holders = new TreeMap<>();
    w.buckets().forEach(b -> holders.put(b, holder));
    return control.setCopyHolders(holders);
  }

  /**
   * Waits until every router whose lease runs routes with map {@code version} or newer; a router cut
   * off from the control database drops out when its lease runs out, having refused routed work from
   * then on. With the lease off ({@code router_lease_ms = 0}) it waits {@code graceMs} instead.
   */
  void awaitRouters(ReshardWorkflow w, long version, long graceMs, Consumer<ReshardProgress> progress,
      String why) {
    if (routerLeaseMs <= 0) {
      if (graceMs > 0) {
        report(progress, w, "grace", 0, -1, 0, "waiting " + graceMs + " ms " + why + ", so that every router knows"
            + " of map version " + version + " (" + io.shardwise.hibernate.ShardwiseSettings.RESHARD_FENCE_GRACE + ")");
        pause(graceMs);
      }
      return;
    }
    long started = System.nanoTime();
    String reported = null;
    while (true) {
      List<ControlDatabase.RouterLease> behind = control.routers().stream()
          .filter(r -> r.live() && r.version() < version).toList();
      if (behind.isEmpty()) {
        return;
      }
      long waitedMs = (System.nanoTime() - started) / 1_000_000;
      long longestLease = behind.stream().mapToLong(ControlDatabase.RouterLease::leaseMs).max().orElse(0);
      if (waitedMs > 3 * Math.max(routerLeaseMs, longestLease)) {
        throw new ReshardingException("Move " + w.id() + " waited " + waitedMs + " ms " + why + " for routers that"
            + " keep renewing their lease but do not acknowledge shard map version " + version + ": " + behind
            + ". Look at their logs (a map they cannot route?), restart or stop them, then run resume again");
      }
      String ids = behind.stream().map(r -> r.id() + "@" + r.version()).toList().toString();
      if (!ids.equals(reported)) {
        report(progress, w, "routers", 0, -1, 0, "waiting " + why + " for " + behind.size() + " router(s) to"
            + " acknowledge shard map version " + version + " (or their lease to run out): " + behind.stream()
            .map(ControlDatabase.RouterLease::toString).collect(java.util.stream.Collectors.joining(", ")));
        reported = ids;
      }
      pause(50);
    }
  }

  long recordedOid(ReshardWorkflow w) {
    for (ReshardObject o : store.objects(w.id())) {
      if (o.kind().equals("sync-slots") && o.detail() != null) {
        return Long.parseLong(o.detail());
      }
    }
    return -1;
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers
  // ---------------------------------------------------------------------------------------------

  ObjectLog log(ReshardWorkflow w, String shard) {
    return (kind, name, detail) -> store.recordObject(w.id(), shard, kind, name, detail);
  }

  static void requirePhase(ReshardWorkflow w, String action, ReshardPhase... allowed) {
    for (ReshardPhase p : allowed) {
      if (w.phase() == p) {
        return;
      }
    }
    throw new ReshardingException("Cannot " + action + " move " + w.id() + ": it is in phase " + w.phase()
        + ", and " + action + " needs " + java.util.Arrays.toString(allowed) + "."
        + (w.phase() == ReshardPhase.SWITCHING_WRITES || w.phase() == ReshardPhase.ROLLING_BACK_WRITES
            || w.phase() == ReshardPhase.COPYING
            || w.phase() == ReshardPhase.CATCHING_UP || w.phase() == ReshardPhase.CREATED ? " Resume it first." : ""));
  }

  Connection connect(ShardMap map, String shardId, ShardDescriptor fallback, String purpose) throws SQLException {
    ShardDescriptor shard = map.shards().get(shardId);
    if (shard == null) {
      shard = fallback;
    }
    if (shard == null) {
      throw new SQLException("shard '" + shardId + "' is not in shard map version " + map.version());
    }
    return open(shard, purpose);
  }

  Connection open(ShardDescriptor shard, String purpose) throws SQLException {
    return shardTimeouts.appliedTo(DriverConnections.open(shard.primaryUrl(), user, password, "shardwise-reshard-"
        + purpose, DriverConnections.timeouts(10, shardTimeouts.socketTimeoutSeconds())));
  }

  ReshardingException failure(String what, String shard, SQLException e) {
    return new ReshardingException("Could not " + what + (shard == null ? "" : " on shard '" + shard + "'") + ": "
        + JdbcUrls.redact(e.getMessage()) + " (SQLSTATE " + e.getSQLState() + ")"
        + (ServerTimeouts.isTimeout(e) && !e.getMessage().contains(" timeout of ") ? ": a lock or statement timeout of"
            + " the move's connections (" + shardTimeouts.settings() + "); look for a long transaction on the shard in"
            + " pg_stat_activity" : "")
        + ". The move's record is kept: `status` shows it, `resume` or `cancel` go on from it.", e);
  }

  static void report(Consumer<ReshardProgress> progress, ReshardWorkflow w, String step, long done, long total,
      double rate, String message) {
    report(progress, w, step, done, total, rate, -1, -1, message);
  }

  static void report(Consumer<ReshardProgress> progress, ReshardWorkflow w, String step, long done, long total,
      double rate, long lagBytes, long lagMillis, String message) {
    if (progress != null) {
      progress.accept(new ReshardProgress(w.id(), w.phase(), step, done, total, rate, lagBytes, lagMillis, message));
    }
  }

  static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ReshardingException("Interrupted; the move's record is kept, resume it later", e);
    }
  }
}
