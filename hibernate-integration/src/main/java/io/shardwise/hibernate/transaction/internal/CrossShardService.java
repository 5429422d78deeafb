package io.shardwise.hibernate.transaction.internal;

import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.transaction.RecoveryReport;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Cross-shard transactions of one session factory: the coordinator and saga log, the two-phase coordinator,
 * the saga runner, and two daemons: one keeps the coordinator's heartbeat, the other runs recovery.
 * They are separate threads so that a slow recovery pass (a shard that does not answer, a long saga
 * to resume) never delays the heartbeat and makes this live coordinator look gone to other
 * instances. Started with the other components when a control database is configured; closed with them.
 */
public final class CrossShardService implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("io.shardwise.tx");

  private final ShardwiseConfig config;
  private final TxLog log;
  private final String coordinatorId;
  private final TwoPhaseCommit twoPhase;
  private final SagaRunner sagas;
  private final long recoveryIntervalMs;
  private final long graceMs;
  private final ScheduledExecutorService daemon;
  private final ScheduledExecutorService heartbeat;
  private volatile FaultInjector faults = FaultInjector.NONE;

  private CrossShardService(ShardwiseConfig config, ShardAccess shardAccess, ScheduledExecutorService housekeeper) {
    this.config = config;
    ShardwiseConfig.Transactions settings = config.transactions();
    this.recoveryIntervalMs = settings.recoveryIntervalMs();
    this.graceMs = settings.inDoubtGraceMs();
    this.coordinatorId = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    this.log = new TxLog(config, housekeeper);
    this.twoPhase = new TwoPhaseCommit(shardAccess, log, coordinatorId, this);
    this.sagas = new SagaRunner(shardAccess, log, coordinatorId, this, settings.sagaMaxAttempts(),
        settings.sagaBackoffMs(), config.ddlCreate());
    this.daemon = daemonThread("shardwise-tx-recovery-" + config.unitName());
    this.heartbeat = daemonThread("shardwise-tx-heartbeat-" + config.unitName());
  }

  private static ScheduledExecutorService daemonThread(String name) {
    return Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Starts the service when there is a control database (null without one, or when
   * {@code shardwise.tx.enabled = false}): creates the log tables (with {@code shardwise.ddl = create}; else
   * checks them, failing with the SQL to run), checks
   * {@code max_prepared_transactions} on every shard that answers, registers this coordinator,
   * resolves what earlier coordinators left in doubt, and schedules that to repeat. The log's pool
   * does its HikariCP housekeeping on {@code housekeeper}, which must outlive this service.
   */
  public static CrossShardService startIfConfigured(ShardwiseConfig config, ShardAccess shardAccess,
      ScheduledExecutorService housekeeper) {
    if (config.controlUrl() == null || !config.transactions().enabled()) {
      return null;
    }
    CrossShardService service = new CrossShardService(config, shardAccess, housekeeper);
    try {
      service.log.prepareTables(config.ddlCreate());
      service.twoPhase.checkShardsAtStartup();
      service.log.heartbeat(service.coordinatorId, config.unitName());
      service.heartbeat.scheduleAtFixedRate(service::beat, service.recoveryIntervalMs, service.recoveryIntervalMs,
          TimeUnit.MILLISECONDS);
      service.recoverQuietly();
      service.daemon.scheduleWithFixedDelay(service::periodic, service.recoveryIntervalMs, service.recoveryIntervalMs,
          TimeUnit.MILLISECONDS);
      return service;
    } catch (RuntimeException e) {
      service.heartbeat.shutdownNow();
      service.daemon.shutdownNow();
      service.log.close();
      throw e;
    }
  }

  /** The configuration error for cross-shard work without a service. */
  public static ShardingConfigurationException notConfigured(ShardwiseConfig config, String what) {
    String unit = config.unitName();
    if (config.controlUrl() == null) {
      return new ShardingConfigurationException(what + " needs a control database to log its decisions durably, and"
          + " persistence unit '" + unit + "' has none: set shardwise.control.url (Shardwise.configure()"
          + ".controlDatabase(url, ...)) to a PostgreSQL database every application instance reaches.");
    }
    return new ShardingConfigurationException(what + " is switched off in persistence unit '" + unit + "' by "
        + ShardwiseSettings.TX_ENABLED + " = false; remove that setting to use it.");
  }

  public TwoPhaseCommit twoPhase() {
    return twoPhase;
  }

  public SagaRunner sagas() {
    return sagas;
  }

  public String coordinatorId() {
    return coordinatorId;
  }

  /** For fault tests only: the hook called at every crash point. */
  public void faultInjector(FaultInjector injector) {
    this.faults = injector == null ? FaultInjector.NONE : injector;
  }

  void fault(FaultInjector.Point point, String id, String shardId) {
    faults.at(point, id, shardId);
  }

  /** One recovery pass now: prepared transactions first, then unfinished sagas. */
  public TwoPhaseCommit.RecoveryResult recoverNow() {
    TwoPhaseCommit.RecoveryResult result = twoPhase.recover(graceMs, staleAfterMs());
    sagas.recover(staleAfterMs());
    return result;
  }

  /** One recovery pass now, as the public API reports it. */
  public RecoveryReport recoveryReport() {
    long resumedBefore = sagas.resumedByRecovery();
    TwoPhaseCommit.RecoveryResult result = recoverNow();
    return new RecoveryReport(result.committed(), result.rolledBack(), result.skipped(), result.unreachableShards(),
        sagas.resumedByRecovery() - resumedBefore);
  }

  private long staleAfterMs() {
    return 3 * recoveryIntervalMs;
  }

  private void beat() {
    try {
      log.heartbeat(coordinatorId, config.unitName());
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "Coordinator heartbeat failed: " + e.getMessage());
    }
  }

  private void periodic() {
    try {
      fault(FaultInjector.Point.RECOVERY_PASS, coordinatorId, null);
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "Recovery pass hook failed: " + e.getMessage());
    }
    recoverQuietly();
  }

  private void recoverQuietly() {
    try {
      recoverNow();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "Cross-shard recovery failed, will retry in " + recoveryIntervalMs + " ms: "
          + e.getMessage());
    }
  }

  @Override
  public void close() {
    heartbeat.shutdownNow();
    daemon.shutdownNow();
    try {
      heartbeat.awaitTermination(5, TimeUnit.SECONDS);
      daemon.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      log.retire(coordinatorId);
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.DEBUG, "Could not retire coordinator " + coordinatorId + ": " + e.getMessage());
    }
    log.close();
  }
}
