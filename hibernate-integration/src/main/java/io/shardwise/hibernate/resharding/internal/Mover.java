package io.shardwise.hibernate.resharding.internal;

import io.shardwise.hibernate.internal.ShardwiseConfig;
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
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
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
 *
 * <h2>Where each phase lives</h2>
 *
 * <p>This class keeps the plans, the workflow's state machine ({@code start}, {@code resume}), verification,
 * the read switch and the status; each other phase is its own class in this package: {@link CopyPhase}
 * (set-up, copy, catch-up), {@link WriteSwitch} (the freeze and flip, and its recovery), {@link
 * WriteRollback} (the switch in reverse), {@link Cleanup} (complete, cancel), on what {@link MoveSteps}
 * shares among them.
 */
public final class Mover extends MoveSteps implements Resharding {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Supplier<List<ReshardTable>> modelTables;
  private final CopyPhase copy;
  private final WriteSwitch writeSwitch;
  private final WriteRollback writeRollback;
  private final Cleanup cleanup;

  /**
   * @param modelTables the tables of the entity model, used when a request names none (empty when
   *     there is no model, e.g. on the command line)
   */
  public Mover(ShardwiseConfig config, Supplier<List<ReshardTable>> modelTables) {
    super(config);
    this.modelTables = modelTables;
    this.copy = new CopyPhase(this);
    this.writeSwitch = new WriteSwitch(this);
    this.writeRollback = new WriteRollback(this);
    this.cleanup = new Cleanup(this, this, writeSwitch);
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
            copy.prepare(w, progress);
            store.setPhase(id, ReshardPhase.COPYING);
          }
          case COPYING -> {
            copy.awaitCopy(w, progress);
            store.setPhase(id, ReshardPhase.CATCHING_UP);
          }
          case CATCHING_UP -> {
            copy.awaitCatchUp(w, progress);
            VerificationReport report = verify(id, progress);
            if (!report.equal()) {
              return store.load(id);
            }
          }
          case SWITCHING_WRITES -> writeSwitch.recoverSwitch(w);
          case ROLLING_BACK_WRITES -> writeRollback.recoverRollback(w);
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
    return writeSwitch.switchWrites(id);
  }

  @Override
  public SwitchResult rollbackWrites(String id) {
    return writeRollback.rollbackWrites(id);
  }

  @Override
  public ReshardWorkflow complete(String id, Consumer<ReshardProgress> progress) {
    return cleanup.complete(id, progress);
  }

  @Override
  public ReshardWorkflow cancel(String id) {
    return cleanup.cancel(id);
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
}
