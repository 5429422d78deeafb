package io.shardwise.hibernate.resharding.internal;

import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.internal.jdbc.DriverConnections;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.internal.jdbc.ServerTimeouts;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.resharding.BucketRanges;
import io.shardwise.hibernate.resharding.ReshardObject;
import io.shardwise.hibernate.resharding.ReshardPhase;
import io.shardwise.hibernate.resharding.ReshardPlan;
import io.shardwise.hibernate.resharding.ReshardProgress;
import io.shardwise.hibernate.resharding.ReshardRequest;
import io.shardwise.hibernate.resharding.ReshardStatus;
import io.shardwise.hibernate.resharding.ReshardTable;
import io.shardwise.hibernate.resharding.ReshardWorkflow;
import io.shardwise.hibernate.resharding.Resharding;
import io.shardwise.hibernate.resharding.ReshardingException;
import io.shardwise.hibernate.resharding.SwitchResult;
import io.shardwise.hibernate.resharding.VerificationReport;
import io.shardwise.hibernate.routing.ControlDatabase;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardMapConflictException;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Runs online moves: the engine behind {@link Resharding}. Every step reads the workflow from the
 * control database, does its work idempotently (an object that exists is not created again), and
 * records the next phase, so that any process can resume a move after the one running it died.
 *
 * <h2>The write switch</h2>
 *
 * <p>Before the freeze, the next map is announced to the routers (which build its routing and open
 * connections to the target for the writers that will come over: at least {@link #STAGED_LEAD_MS}
 * before the freeze), the map change is validated and staged as one statement and the target's
 * fence opens (no map sends writes there yet). The switch then holds the move's advisory lock on the
 * source exclusively (see {@link Fences}): taking it waits for every transaction that wrote a moving
 * bucket (the drain), and holding it makes new writers to those buckets wait in the fence trigger.
 * Then a marker row is written on the source and the mover waits until the target has applied it:
 * the target has every change of the moving buckets. The source's fence turns to {@code fenced}, the
 * staged map change gives the buckets to the target (a compare-and-set on its version, under a
 * statement timeout of the time left), its commit is announced (the routers install the staged map
 * without a read), and the lock is released: writers that waited fail with SQLSTATE {@code SW002},
 * find the new map installed and retry on the target's open connections. If the lock, the marker or the
 * map change does not come within the pause limit, everything is put back and the lock released:
 * writes go on at the source, having waited at most the limit (and the release).
 */
public final class Mover implements Resharding {
  private static final System.Logger LOG = System.getLogger("io.shardwise.resharding");
  private static final SecureRandom RANDOM = new SecureRandom();
  /** The least time between announcing a staged map to the routers and freezing writes (see {@link #awaitStagedLead}). */
  static final long STAGED_LEAD_MS = 250;
  private static final long PROGRESS_INTERVAL_MS = 250;
  /** How often the copy's sync state is polled (cheap: one catalog query on the target). */
  private static final long COPY_POLL_MS = 25;

  private final ControlDatabase control;
  private final WorkflowStore store;
  private final String user;
  private final String password;
  private final ShardwiseConfig.Resharding settings;
  private final long routerLeaseMs;
  private final Supplier<List<ReshardTable>> modelTables;
  /** The timeouts of the move's own connections to the shards. */
  private final ServerTimeouts shardTimeouts;

  /**
   * @param modelTables the tables of the entity model, used when a request names none (empty when
   *     there is no model, e.g. on the command line)
   */
  public Mover(ShardwiseConfig config, Supplier<List<ReshardTable>> modelTables) {
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
    this.modelTables = modelTables;
    // opening runs no DDL by default: DDL on the map's tables would queue behind any transaction holding
    // their rows, such as the staged map change of a mover that died in a write switch, which only the
    // commands below settle; with shardwise.ddl = create, what is missing is created (the catalog is read first)
    if (config.ddlCreate()) {
      control.createSchema();
      if (routerLeaseMs > 0) {
        control.prepareRouterTable(true);
      }
    } else {
      control.checkSchema();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Plans
  // ---------------------------------------------------------------------------------------------

  @Override
  public ReshardPlan plan(ReshardRequest given) {
    ReshardRequest request = withTables(given);
    ShardMap map = control.load();
    validate(request, map);
    List<ReshardPlan.TablePlan> tables = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    List<ReshardTable> present = new ArrayList<>();
    try (Connection source = connect(map, request.source(), null, "plan")) {
      for (ReshardTable t : request.tables()) {
        if (t.name().startsWith(LOOKUP_TABLE_PREFIX) && !SchemaCopy.exists(source, t.name())) {
          warnings.add("lookup table " + t.name() + " does not exist on '" + request.source() + "' yet (created on"
              + " first use): nothing of it to move");
          continue;
        }
        present.add(t);
        if (!SchemaCopy.exists(source, t.name())) {
          throw new ReshardingException("Shard '" + request.source() + "' has no table " + t.name()
              + "; name the tables as the database stores them (e.g. purchase_order:merchant_id:long)");
        }
        if (!t.isReference() && !Sql.exists(source, "SELECT 1 FROM pg_attribute WHERE attrelid = ?::regclass AND "
            + "attname = ? AND NOT attisdropped", Sql.table(t.name()), t.keyColumn())) {
          throw new ReshardingException("Table " + t.name() + " on shard '" + request.source() + "' has no column "
              + t.keyColumn() + " (its shard key, as given)");
        }
        long[] size = size(source, t, request, map.bucketCount());
        tables.add(new ReshardPlan.TablePlan(t.name(), t.isReference(), size[0], size[1],
            t.isReference() ? "not needed (copied whole)" : Replication.identityPlan(source, t), size[2] == 1));
        warnings.addAll(SchemaCopy.warnings(source, t));
      }
    } catch (SQLException e) {
      throw failure("plan the move", request.source(), e);
    }
    ShardDescriptor target = request.newTarget() != null ? request.newTarget() : map.shard(request.target());
    try (Connection t = open(target, "plan")) {
      for (ReshardTable table : request.tables()) {
        if (!table.isReference() && SchemaCopy.exists(t, table.name())) {
          long rows = Sql.queryLong(t, "SELECT count(*) FROM " + Sql.table(table.name()) + " WHERE "
              + Sql.inBuckets(table, request.buckets(), map.bucketCount()));
          if (rows > 0) {
            warnings.add("the target already holds " + rows + " row(s) of the moving buckets in " + table.name()
                + " (left by an earlier move?); start refuses until they are gone");
          }
        }
      }
    } catch (SQLException e) {
      throw failure("check the target", request.target(), e);
    }
    return new ReshardPlan(request.withTables(present), tables, warnings);
  }

  /** The prefix of {@code @GlobalIndex} lookup tables, which the runtime creates on a shard on first use. */
  private static final String LOOKUP_TABLE_PREFIX = "shardwise.gidx_";

  /** rows, bytes, 1 if sampled. */
  private static long[] size(Connection c, ReshardTable t, ReshardRequest request, int bucketCount) throws SQLException {
    double estimate = Double.parseDouble(Sql.queryText(c, "SELECT reltuples FROM pg_class WHERE oid = ?::regclass",
        Sql.table(t.name())));
    boolean sample = estimate > 2_000_000;
    String from = Sql.table(t.name()) + " r" + (sample ? " TABLESAMPLE SYSTEM (1)" : "");
    String where = t.isReference() ? "" : " WHERE " + Sql.inBuckets(t, request.buckets(), bucketCount);
    try (PreparedStatement ps = c.prepareStatement("SELECT count(*), coalesce(sum(pg_column_size(r.*)), 0) FROM " + from
        + where); ResultSet rs = ps.executeQuery()) {
      rs.next();
      long factor = sample ? 100 : 1;
      return new long[] {rs.getLong(1) * factor, rs.getLong(2) * factor, sample ? 1 : 0};
    }
  }

  private ReshardRequest withTables(ReshardRequest request) {
    ReshardRequest full = request.tables().isEmpty() ? request.withTables(modelTables.get()) : request;
    if (full.tables().stream().allMatch(ReshardTable::isReference)) {
      throw new ReshardingException("A move needs at least one sharded table: name them (table:keyColumn:type, e.g."
          + " purchase_order:merchant_id:long) or use ShardedSessions.resharding(), which takes them from the entities");
    }
    return full;
  }

  private void validate(ReshardRequest request, ShardMap map) {
    List<String> problems = new ArrayList<>();
    if (!map.shards().containsKey(request.source())) {
      problems.add("the source '" + request.source() + "' is not a shard of the map " + map.shards().keySet());
    }
    if (!map.shards().containsKey(request.target()) && request.newTarget() == null) {
      problems.add("the target '" + request.target() + "' is not a shard of the map " + map.shards().keySet()
          + "; to add a shard, give its descriptor (planAddShard, or --target-url on the command line)");
    }
    if (problems.isEmpty()) {
      List<Integer> notOwned = request.buckets().stream().filter(b -> b < 0 || b >= map.bucketCount()
          || !map.ownerOf(b).equals(request.source())).toList();
      if (!notOwned.isEmpty()) {
        problems.add("bucket(s) " + BucketRanges.format(notOwned) + " are not owned by '" + request.source()
            + "' in shard map version " + map.version() + " (or do not exist: the map has " + map.bucketCount() + ")");
      }
    }
    if (!problems.isEmpty()) {
      throw new ReshardingException("Refused to move buckets " + BucketRanges.format(request.buckets()) + " from '"
          + request.source() + "' to '" + request.target() + "': " + String.join("; ", problems) + ". Nothing changed.");
    }
  }

  @Override
  public List<ReshardRequest> planAddShard(ShardDescriptor newShard) {
    ShardMap map = control.load();
    ShardMap next = map.withShardAdded(newShard);
    Map<String, SortedSet<Integer>> byDonor = new TreeMap<>();
    for (int b = 0; b < map.bucketCount(); b++) {
      if (next.ownerOf(b).equals(newShard.id())) {
        byDonor.computeIfAbsent(map.ownerOf(b), x -> new TreeSet<>()).add(b);
      }
    }
    List<ReshardRequest> out = new ArrayList<>();
    byDonor.forEach((donor, buckets) -> out.add(new ReshardRequest(donor, newShard.id(), buckets, modelTables.get(),
        newShard)));
    return out;
  }

  @Override
  public List<ReshardRequest> planDrain(String shardId) {
    ShardMap map = control.load();
    map.shard(shardId);
    List<ShardDescriptor> others = map.shards().values().stream().filter(s -> !s.id().equals(shardId)).toList();
    if (others.isEmpty()) {
      throw new ReshardingException("Shard '" + shardId + "' is the only shard; add one before draining it");
    }
    Map<String, Integer> held = new HashMap<>();
    for (int b = 0; b < map.bucketCount(); b++) {
      held.merge(map.ownerOf(b), 1, Integer::sum);
    }
    Map<String, SortedSet<Integer>> byRecipient = new TreeMap<>();
    for (int b = 0; b < map.bucketCount(); b++) {
      if (map.ownerOf(b).equals(shardId)) {
        ShardDescriptor least = null;
        for (ShardDescriptor s : others) {
          if (least == null || (double) held.getOrDefault(s.id(), 0) / s.weight()
              < (double) held.getOrDefault(least.id(), 0) / least.weight()) {
            least = s;
          }
        }
        held.merge(least.id(), 1, Integer::sum);
        byRecipient.computeIfAbsent(least.id(), x -> new TreeSet<>()).add(b);
      }
    }
    List<ReshardRequest> out = new ArrayList<>();
    byRecipient.forEach((recipient, buckets) -> out.add(new ReshardRequest(shardId, recipient, buckets,
        modelTables.get(), null)));
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // Start, resume: set up, copy, catch up, verify
  // ---------------------------------------------------------------------------------------------

  @Override
  public ReshardWorkflow start(ReshardRequest given, Consumer<ReshardProgress> progress) {
    ReshardPlan plan = plan(withTables(given));
    ReshardRequest request = plan.request();
    plan.warnings().stream().filter(w -> w.startsWith("the target already holds")).findFirst().ifPresent(w -> {
      throw new ReshardingException("Refused to start the move: " + w);
    });
    store.createSchema();   // the moves' records, made by the first start
    List<String> active = store.activeTouching(request.source(), request.target());
    if (!active.isEmpty()) {
      throw new ReshardingException("Refused to start a move between '" + request.source() + "' and '"
          + request.target() + "': move(s) " + active + " on these shards are not finished; complete or cancel them"
          + " first (one move per shard at a time)");
    }
    String id = "mv" + HexFormat.of().formatHex(RANDOM.generateSeed(4));
    ReshardWorkflow w = new ReshardWorkflow(id, request.source(), request.target(), request.buckets(),
        request.tables(), ReshardPhase.CREATED, null, "shardwise_pub_" + id, "shardwise_sub_" + id,
        "shardwise_sub_" + id, RANDOM.nextLong(), -1, null, null, null, null, List.of());
    store.insert(w, request.newTarget());
    for (ReshardPlan.TablePlan t : plan.tables()) {
      store.tableProgress(id, t.table(), t.rows(), 0L, null, null);
    }
    report(progress, w, "plan", 0, plan.rows(), 0, "move " + id + ": " + request.buckets().size() + " bucket(s) "
        + BucketRanges.format(request.buckets()) + " from " + request.source() + " to " + request.target() + ", "
        + plan.rows() + " rows");
    return resume(id, progress);
  }

  @Override
  public ReshardWorkflow resume(String id, Consumer<ReshardProgress> progress) {
    settleStaged(id);
    for (int step = 0; step < 10; step++) {
      ReshardWorkflow w = store.load(id);
      try {
        switch (w.phase()) {
          case CREATED -> {
            prepare(w, progress);
            store.setPhase(id, ReshardPhase.COPYING);
          }
          case COPYING -> {
            awaitCopy(w, progress);
            store.setPhase(id, ReshardPhase.CATCHING_UP);
          }
          case CATCHING_UP -> {
            awaitCatchUp(w, progress);
            VerificationReport report = verify(id, progress);
            if (!report.equal()) {
              return store.load(id);
            }
          }
          case SWITCHING_WRITES -> recoverSwitch(w);
          case ROLLING_BACK_WRITES -> recoverRollback(w);
          case COMPLETING -> {
            return complete(id, progress);
          }
          case CANCELLING -> {
            return cancel(id);
          }
          default -> {
            return w;
          }
        }
      } catch (SQLException e) {
        ReshardingException failure = failure(w.phase().name().toLowerCase() + " move " + id, null, e);
        store.failed(id, failure.getMessage());
        throw failure;
      } catch (ReshardingException e) {
        store.failed(id, e.getMessage());
        throw e;
      }
    }
    return store.load(id);
  }

  private void prepare(ReshardWorkflow w, Consumer<ReshardProgress> progress) throws SQLException {
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

  private void awaitCopy(ReshardWorkflow w, Consumer<ReshardProgress> progress) throws SQLException {
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

  private void awaitCatchUp(ReshardWorkflow w, Consumer<ReshardProgress> progress) throws SQLException {
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

  /** Writes a marker on the source and waits until the target has it; false after {@code timeoutMillis}. */
  private static boolean markerRoundTrip(ReshardWorkflow w, Connection source, Connection target, long timeoutMillis)
      throws SQLException {
    long seq = Fences.writeMarker(source, w.id(), w.source());
    return awaitMarker(w, target, w.source(), seq, System.nanoTime() + timeoutMillis * 1_000_000);
  }

  private static boolean awaitMarker(ReshardWorkflow w, Connection target, String origin, long seq, long deadlineNanos)
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

  @Override
  public VerificationReport verify(String id, Consumer<ReshardProgress> progress) {
    ReshardWorkflow w = store.load(id);
    requirePhase(w, "verify", ReshardPhase.CATCHING_UP, ReshardPhase.VERIFIED, ReshardPhase.READS_SWITCHED);
    ShardMap map = control.load();
    long total = w.tables().stream().mapToLong(t -> t.isReference() ? 1 : w.buckets().size()).sum();
    Verifier verifier = new Verifier(w, map.bucketCount(), settings.verifyThreads(), new Verifier.Connections() {
      @Override
      public Connection source() throws SQLException {
        return connect(map, w.source(), null, id + "-verify");
      }

      @Override
      public Connection target() throws SQLException {
        return connect(map, w.target(), null, id + "-verify");
      }

      @Override
      public void catchUp(Connection source, Connection target) throws SQLException {
        if (!markerRoundTrip(w, source, target, 60_000)) {
          throw new SQLException("the target did not apply a marker within 60 s; is the subscription " + w.subscription()
              + " running?");
        }
      }
    }, store);
    long t0 = System.nanoTime();
    VerificationReport report;
    try {
      report = verifier.run(done -> report(progress, w, "verify", done, total,
          done * 1e9 / Math.max(1, System.nanoTime() - t0), null));
    } catch (SQLException e) {
      throw failure("verify move " + id, null, e);
    }
    report(progress, w, "verify", total, total, 0, report.describe().trim());
    if (report.equal() && w.phase() == ReshardPhase.CATCHING_UP) {
      store.setPhase(id, ReshardPhase.VERIFIED);
    } else if (!report.equal()) {
      store.failed(id, "verification found differences: " + report.describe().trim());
    }
    return report;
  }

  // ---------------------------------------------------------------------------------------------
  // Switches
  // ---------------------------------------------------------------------------------------------

  @Override
  public ReshardWorkflow switchReads(String id) {
    ReshardWorkflow w = store.load(id);
    requirePhase(w, "switch reads", ReshardPhase.VERIFIED);
    ShardMap map = control.load();
    try (Connection source = connect(map, w.source(), null, id); Connection target = connect(map, w.target(), null, id)) {
      if (!markerRoundTrip(w, source, target, 30_000)) {
        throw new ReshardingException("The target of move " + id + " did not catch up within 30 s; reads not switched");
      }
    } catch (SQLException e) {
      throw failure("switch the reads of move " + id, null, e);
    }
    Map<Integer, String> readers = new TreeMap<>();
    w.buckets().forEach(b -> readers.put(b, w.target()));
    control.switchReads(map.version(), readers);
    store.setPhase(id, ReshardPhase.READS_SWITCHED);
    return store.load(id);
  }

  @Override
  public ReshardWorkflow rollback(String id) {
    ReshardWorkflow w = settleStaged(id);
    if (w.phase() == ReshardPhase.WRITES_SWITCHED || w.phase() == ReshardPhase.ROLLING_BACK_WRITES) {
      SwitchResult result = rollbackWrites(id);
      if (!result.switched()) {
        throw new ReshardingException("Move " + id + ": " + result.describeRollback() + ". The move stays in"
            + " WRITES_SWITCHED with writes on '" + w.target() + "'; run rollback again (a larger "
            + io.shardwise.hibernate.ShardwiseSettings.RESHARD_PAUSE_LIMIT + " or a lighter write load helps).");
      }
      return store.load(id);
    }
    requirePhase(w, "roll back", ReshardPhase.READS_SWITCHED);
    Map<Integer, String> readers = new TreeMap<>();
    w.buckets().forEach(b -> readers.put(b, w.source()));
    control.switchReads(-1, readers);
    store.setPhase(id, ReshardPhase.VERIFIED);
    return store.load(id);
  }

  @Override
  public SwitchResult switchWrites(String id) {
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

  /**
   * Waits until {@link #STAGED_LEAD_MS} have passed since the next map was announced: the routers'
   * time to open connections to the shard that gains the buckets. Usually over already (setting
   * up the reverse path takes longer); never inside the freeze.
   */
  private static void awaitStagedLead(long announcedAt) {
    long left = STAGED_LEAD_MS - (System.nanoTime() - announcedAt) / 1_000_000;
    if (left > 0) {
      pause(left);
    }
  }

  /**
   * Warms each backend's catalog caches for the statements of a freeze (the write switch or its
   * rollback), so that they cost no cold start while writes wait.
   */
  private static void warmFreezeStatements(String id, Connection source, Connection target, Connection controlConnection)
      throws SQLException {
    for (Connection shard : List.of(source, target)) {
      Sql.queryText(shard, "SELECT count(*) FROM " + Fences.SCHEMA + ".fence WHERE workflow_id = ?", id);
      Sql.queryText(shard, "SELECT count(*) FROM " + Fences.SCHEMA + ".marker WHERE workflow_id = ?", id);
      Sql.execute(shard, "UPDATE " + Fences.SCHEMA + ".fence SET state = state WHERE false");
    }
    Sql.execute(controlConnection, "SELECT version FROM shardwise.map_version", "SELECT count(*) FROM shardwise.bucket",
        "SELECT id FROM shardwise.shard", "UPDATE shardwise.bucket SET shard_id = shard_id WHERE false");
  }

  private SwitchResult freezeAndFlip(ReshardWorkflow w, ShardMap map, Connection source, Connection target,
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
  private record Flip(long version, String failure, long fenceNanos, long mapNanos) {}

  /**
   * Inside the freeze, the target caught up (its fence already open): fences the source and commits
   * the staged map change, both before {@code deadline}. Each is one round trip; the map change runs
   * under a statement timeout of the time left. When the time is up or the map change fails, the
   * source's fence is put back and nothing is switched, unless the map did change (a lost reply), which
   * the mover reads back before it decides.
   */
  private Flip flip(ReshardWorkflow w, ShardMap map, Connection source, ControlDatabase.StagedAssignment assignment,
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
  private static void closeTargetFence(ReshardWorkflow w, ShardMap map, Connection target) throws SQLException {
    Fences.set(target, w.id(), w.buckets(), "fenced", w.source(), map.version(), w.lockKey());
  }

  /**
   * After a map change failed without a server's answer, the version that gave the buckets to
   * {@code owner} (the target in a switch, the source in its rollback), read back; else -1.
   */
  private long flippedVersion(ReshardWorkflow w, RuntimeException e, String owner) {
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

  private static void unlock(Connection source, ReshardWorkflow w) throws SQLException {
    Sql.queryText(source, "SELECT pg_advisory_unlock(?)", w.lockKey());
  }

  private SwitchResult abandon(ReshardWorkflow w, long t0, long releasedAt, long drainNanos, long catchUpNanos,
      long fenceNanos, long mapNanos, String reason) {
    ReshardWorkflow current = store.load(w.id());
    store.setPhase(w.id(), current.switchedFrom() != null ? current.switchedFrom() : ReshardPhase.VERIFIED);
    SwitchResult result = new SwitchResult(false, (releasedAt - t0) / 1e6, drainNanos / 1e6, catchUpNanos / 1e6,
        fenceNanos / 1e6, mapNanos / 1e6, 0, -1, reason);
    LOG.log(System.Logger.Level.INFO, "move " + w.id() + ": " + result.describe());
    return result;
  }

  /** The name of the prepared transaction holding a switch's staged map change. */
  private static String stagedName(ReshardWorkflow w) {
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
  private ReshardWorkflow settleStaged(String id) {
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
  private static String switchConnectionName(String id, String kind) {
    return "shardwise-reshard-" + id + "-" + kind;
  }

  /** After a crash during a write switch: finish it if the source was fenced, else undo it. */
  private void recoverSwitch(ReshardWorkflow w) throws SQLException {
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

  // ---------------------------------------------------------------------------------------------
  // Reverse replication (target -> source) and the rollback of the write switch
  // ---------------------------------------------------------------------------------------------

  static String reversePublication(ReshardWorkflow w) {
    return "shardwise_rpub_" + w.id();
  }

  /** The reverse subscription on the source; its slot on the target has the same name. */
  static String reverseSubscription(ReshardWorkflow w) {
    return "shardwise_rsub_" + w.id();
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
  private void setUpReverse(ReshardWorkflow w, ShardMap map, Connection source, Connection target) throws SQLException {
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

  /** Drops the reverse subscription (and through it its slot), any slot left of it, and the reverse publication. */
  private void dropReverse(ReshardWorkflow w, Connection source, Connection target) throws SQLException {
    String subscription = reverseSubscription(w);
    Replication.dropSubscription(source, subscription);
    store.dropped(w.id(), w.source(), "subscription", subscription);
    Replication.dropSlots(target, Replication.slotsOf(target, subscription, -1));
    store.dropped(w.id(), w.target(), "slot", subscription);
    Replication.dropPublication(target, reversePublication(w));
    store.dropped(w.id(), w.target(), "publication", reversePublication(w));
  }

  @Override
  public SwitchResult rollbackWrites(String id) {
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
  private SwitchResult freezeAndFlipBack(ReshardWorkflow w, ShardMap map, Connection source, Connection target,
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
  private boolean lockWithinPauseLimit(Connection c, ReshardWorkflow w) throws SQLException {
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

  private static void unlockQuietly(Connection c, ReshardWorkflow w) {
    try {
      unlock(c, w);
    } catch (SQLException e) {
      LOG.log(System.Logger.Level.WARNING, "move " + w.id() + ": releasing the freeze failed (" + e.getMessage()
          + "); it ends with the mover's connection");
    }
  }

  /** Records that the rollback was abandoned, the freeze being released; the pause ends now, before that record. */
  private SwitchResult abandonRollback(ReshardWorkflow w, long t0, long drainNanos, long catchUpNanos, String reason) {
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
  private void finishRollback(ReshardWorkflow w, Connection source, Connection target) throws SQLException {
    dropReverse(w, source, target);
    store.setPhase(w.id(), ReshardPhase.VERIFIED);
  }

  /** After a crash during a rollback of the write switch: finish it if the target was fenced, else undo it. */
  private void recoverRollback(ReshardWorkflow w) throws SQLException {
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

  // ---------------------------------------------------------------------------------------------
  // Complete, cancel: remove what the move created
  // ---------------------------------------------------------------------------------------------

  @Override
  public ReshardWorkflow complete(String id, Consumer<ReshardProgress> progress) {
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

  @Override
  public ReshardWorkflow cancel(String id) {
    ReshardWorkflow w = settleStaged(id);
    if (w.phase() == ReshardPhase.COMPLETED || w.phase() == ReshardPhase.CANCELLED) {
      return w;
    }
    if (w.phase() == ReshardPhase.SWITCHING_WRITES) {
      try {
        recoverSwitch(w);
      } catch (SQLException e) {
        throw failure("settle the interrupted write switch of move " + id, null, e);
      }
      w = store.load(id);
    }
    if (w.phase() == ReshardPhase.WRITES_SWITCHED || w.phase() == ReshardPhase.ROLLING_BACK_WRITES) {
      SwitchResult back = rollbackWrites(id);
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
      rollback(id);
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

  /**
   * Records in the shard map that {@code holder} holds a second copy of the move's buckets (null:
   * that no shard does). Scatter-gather reads such buckets from their read owner only.
   */
  private long recordCopies(ReshardWorkflow w, String holder) {
    Map<Integer, String> holders = new TreeMap<>();
    w.buckets().forEach(b -> holders.put(b, holder));
    return control.setCopyHolders(holders);
  }

  /**
   * Waits until every router whose lease runs routes with map {@code version} or newer; a router cut
   * off from the control database drops out when its lease runs out, having refused routed work from
   * then on. With the lease off ({@code router_lease_ms = 0}) it waits {@code graceMs} instead.
   */
  private void awaitRouters(ReshardWorkflow w, long version, long graceMs, Consumer<ReshardProgress> progress,
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

  private static ReshardTable firstSharded(ReshardWorkflow w) {
    return w.tables().stream().filter(t -> !t.isReference()).findFirst().orElseThrow();
  }

  private void dropReplication(ReshardWorkflow w, Connection source, Connection target) throws SQLException {
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

  private long recordedOid(ReshardWorkflow w) {
    for (ReshardObject o : store.objects(w.id())) {
      if (o.kind().equals("sync-slots") && o.detail() != null) {
        return Long.parseLong(o.detail());
      }
    }
    return -1;
  }

  private void removeFencesAndIdentities(ReshardWorkflow w, Connection source, Connection target) throws SQLException {
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

  // ---------------------------------------------------------------------------------------------
  // Status
  // ---------------------------------------------------------------------------------------------

  @Override
  public ReshardStatus status(String id) {
    ReshardWorkflow w = settleStaged(id);
    ShardMap map = control.load();
    List<ReshardObject> objects = new ArrayList<>();
    List<String> orphans = new ArrayList<>();
    long lag = -1;
    long lagMillis = -1;
    ShardDescriptor newTarget = store.newTarget(id);
    try (Connection source = connect(map, w.source(), null, id + "-status");
        Connection target = connect(map, w.target(), newTarget, id + "-status")) {
      long oid = recordedOid(w);
      List<String> slots = Replication.slotsOf(source, w.slot(), oid);
      List<String> reverseSlots = Replication.slotsOf(target, reverseSubscription(w), -1);
      for (ReshardObject o : store.objects(id)) {
        Connection c = o.shard().equals(w.source()) ? source : target;
        boolean exists = switch (o.kind()) {
          case "slot" -> (o.shard().equals(w.source()) ? slots : reverseSlots).contains(o.name());
          case "sync-slots" -> slots.stream().anyMatch(s -> !s.equals(w.slot()));
          case "publication" -> Sql.exists(c, "SELECT 1 FROM pg_publication WHERE pubname = ?", o.name());
          case "subscription" -> Sql.exists(c, "SELECT 1 FROM pg_subscription WHERE subname = ?", o.name());
          case "fence" -> Sql.exists(c, "SELECT 1 FROM pg_trigger WHERE tgname = ? AND tgrelid = to_regclass(?)",
              Fences.TRIGGER, Sql.table(o.name()));
          case "index" -> Sql.exists(c, "SELECT 1 WHERE to_regclass(?) IS NOT NULL", Sql.ident(o.name()));
          case "table" -> SchemaCopy.exists(c, o.name());
          case "replica-identity" -> o.exists() && SchemaCopy.exists(c, o.name())
              && !o.detail().equals(Replication.replicaIdentity(c, o.name()));
          default -> o.exists();
        };
        String detail = o.kind().equals("replica-identity") ? "restores to " + o.detail() : o.detail();
        objects.add(new ReshardObject(o.shard(), o.kind(), o.name(), exists, detail));
      }
      boolean subscribed = Sql.exists(target, "SELECT 1 FROM pg_subscription WHERE subname = ?", w.subscription());
      if (!subscribed || w.phase().isTerminal()) {
        orphans.addAll(slots);
      }
      if (w.phase().isTerminal()
          || !Sql.exists(source, "SELECT 1 FROM pg_subscription WHERE subname = ?", reverseSubscription(w))) {
        reverseSlots.forEach(s -> orphans.add(s + " (on " + w.target() + ")"));
      }
      lag = Replication.lagBytes(source, w.slot());
      if (subscribed && !w.phase().isTerminal()) {
        long t0 = System.nanoTime();
        if (markerRoundTrip(w, source, target, 5_000)) {
          lagMillis = (System.nanoTime() - t0) / 1_000_000;
        }
      }
    } catch (SQLException e) {
      throw failure("read the status of move " + id, null, e);
    }
    return new ReshardStatus(w, objects, lag, lagMillis, orphans);
  }

  @Override
  public List<ReshardWorkflow> workflows() {
    return store.all();
  }

  // ---------------------------------------------------------------------------------------------
  // Helpers
  // ---------------------------------------------------------------------------------------------

  private ObjectLog log(ReshardWorkflow w, String shard) {
    return (kind, name, detail) -> store.recordObject(w.id(), shard, kind, name, detail);
  }

  private static void requirePhase(ReshardWorkflow w, String action, ReshardPhase... allowed) {
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

  private Connection connect(ShardMap map, String shardId, ShardDescriptor fallback, String purpose) throws SQLException {
    ShardDescriptor shard = map.shards().get(shardId);
    if (shard == null) {
      shard = fallback;
    }
    if (shard == null) {
      throw new SQLException("shard '" + shardId + "' is not in shard map version " + map.version());
    }
    return open(shard, purpose);
  }

  private Connection open(ShardDescriptor shard, String purpose) throws SQLException {
    return shardTimeouts.appliedTo(DriverConnections.open(shard.primaryUrl(), user, password, "shardwise-reshard-"
        + purpose, DriverConnections.timeouts(10, shardTimeouts.socketTimeoutSeconds())));
  }

  private ReshardingException failure(String what, String shard, SQLException e) {
    return new ReshardingException("Could not " + what + (shard == null ? "" : " on shard '" + shard + "'") + ": "
        + JdbcUrls.redact(e.getMessage()) + " (SQLSTATE " + e.getSQLState() + ")"
        + (ServerTimeouts.isTimeout(e) && !e.getMessage().contains(" timeout of ") ? ": a lock or statement timeout of"
            + " the move's connections (" + shardTimeouts.settings() + "); look for a long transaction on the shard in"
            + " pg_stat_activity" : "")
        + ". The move's record is kept: `status` shows it, `resume` or `cancel` go on from it.", e);
  }

  private static void report(Consumer<ReshardProgress> progress, ReshardWorkflow w, String step, long done, long total,
      double rate, String message) {
    report(progress, w, step, done, total, rate, -1, -1, message);
  }

  private static void report(Consumer<ReshardProgress> progress, ReshardWorkflow w, String step, long done, long total,
      double rate, long lagBytes, long lagMillis, String message) {
    if (progress != null) {
      progress.accept(new ReshardProgress(w.id(), w.phase(), step, done, total, rate, lagBytes, lagMillis, message));
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ReshardingException("Interrupted; the move's record is kept, resume it later", e);
    }
  }
}
