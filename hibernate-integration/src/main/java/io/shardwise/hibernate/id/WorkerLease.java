package io.shardwise.hibernate.id;

import io.shardwise.hibernate.internal.jdbc.DriverConnections;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.internal.jdbc.LockedDdl;
import io.shardwise.hibernate.internal.jdbc.OwnObjects;
import io.shardwise.hibernate.ShardwiseDdl;
import io.shardwise.hibernate.ShardwiseObjectsMissingException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * A worker id leased from a table in a PostgreSQL control database, so that running instances of
 * an application never use the same worker id at the same time without anyone configuring ids by
 * hand.
 *
 * <pre>{@code
 * try (WorkerLease lease = WorkerLease.builder("jdbc:postgresql://control:5432/shardwise")
 *         .user("shardwise").password(secret)
 *         .maxWorkerId(SnowflakeLayout.DEFAULT.maxWorkerId())
 *         .acquire()) {
 *   Snowflake ids = Snowflake.builder(SnowflakeLayout.DEFAULT).workerLease(lease).build();
 *   long id = ids.nextId();
 * }
 * }</pre>
 *
 * <h2>The table</h2>
 *
 * {@code shardwise.snowflake_worker(worker_id int primary key, owner text, acquired_at, expires_at
 * timestamptz)}, created by an administrator (the SQL is
 * {@code ShardwiseDdl.Feature.WORKER_LEASES.script(role)}), or on first use with
 * {@link Builder#createTableIfMissing(boolean)}. {@link Builder#acquire()} takes the lowest worker id whose
 * row is absent or expired, in a transaction serialized by an advisory lock, and writes a unique
 * owner token and {@code expires_at = now() + ttl}. A daemon heartbeat thread renews the row every
 * third of the TTL, but only while the row still carries this lease's owner token and has not
 * expired; {@link #close()} deletes the row.
 *
 * <h2>Why two instances never hold the same id</h2>
 *
 * Another instance can take a worker id only after its row has expired by the database's clock.
 * This lease stops issuing ids earlier: each successful renewal lets the generator run until
 * {@code (clock when the renewal was sent) + ttl - ttl/5}, measured on this host. If renewals fail
 * (database down, network partition, a long pause), generation stops at that deadline with a
 * {@link WorkerLeaseLostException}, at least {@code ttl/5} before anyone else can lease the id; if
 * a renewal finds the row expired or owned by someone else, the lease is lost for good. The
 * margin also covers the few milliseconds a {@link Snowflake} may run ahead of the clock, as long
 * as the hosts' clocks agree to within {@code ttl/5} minus the generator's clock step-back
 * tolerance.
 */
public final class WorkerLease implements AutoCloseable {

  /** The table's name, schema included. */
  public static final String TABLE = "shardwise.snowflake_worker";

  private static final Duration MIN_TTL = Duration.ofSeconds(1);

  private final int workerId;
  private final String owner;
  private final String redactedUrl;
  private final Connector connector;
  private final long ttlMillis;
  private final long marginMillis;
  private final Clock clock;
  private final ScheduledExecutorService heartbeat;

  /** Clock reading from which {@link Snowflake} refuses ids; only grows, except when lost or closed. */
  private volatile long usableUntil;
  private volatile String lostReason;
  private volatile Throwable lastError;
  private volatile long lastRenewedAt;

  private WorkerLease(int workerId, String owner, String redactedUrl, Connector connector, long ttlMillis,
      Clock clock, long usableUntil) {
    this.workerId = workerId;
    this.owner = owner;
    this.redactedUrl = redactedUrl;
    this.connector = connector;
    this.ttlMillis = ttlMillis;
    this.marginMillis = ttlMillis / 5;
    this.clock = clock;
    this.usableUntil = usableUntil;
    this.lastRenewedAt = clock.millis();
    if (connector == null) {
      this.heartbeat = null;
    } else {
      ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, task -> {
        Thread thread = new Thread(task, "shardwise-snowflake-lease-" + workerId);
        thread.setDaemon(true);
        return thread;
      });
      executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
      long period = Math.max(1, ttlMillis / 3);
      executor.scheduleWithFixedDelay(this::renew, period, period, TimeUnit.MILLISECONDS);
      this.heartbeat = executor;
    }
  }

  /** A worker id given by configuration: never expires, needs no database. */
  static WorkerLease fixed(int workerId, Clock clock) {
    return new WorkerLease(workerId, "fixed", "(none)", null, 0, clock, Long.MAX_VALUE);
  }

  /** Starts describing a lease from the control database at {@code jdbcUrl}. */
  public static Builder builder(String jdbcUrl) {
    if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("lease URL " + JdbcUrls.redact(jdbcUrl)
          + " is not a PostgreSQL JDBC URL: use jdbc:postgresql://host:port/database");
    }
    return new Builder(jdbcUrl);
  }

  /** The leased worker id. */
  public int workerId() {
    return workerId;
  }

  /** The token that marks this lease's row in the table: host, process and a random part. */
  public String owner() {
    return owner;
  }

  /** True while ids may be issued under this lease: renewed in time, not lost, not closed. */
  public boolean isValid() {
    return clock.millis() < usableUntil;
  }

  /** Stops the heartbeat and deletes the lease's row, so the worker id is free at once. Idempotent. */
  @Override
  public void close() {
    if (heartbeat == null) {
      return;
    }
    synchronized (this) {
      if (lostReason == null) {
        lostReason = "the lease was closed";
      }
      usableUntil = Long.MIN_VALUE;
    }
    heartbeat.shutdownNow();
    try (Connection c = connector.connect();
         PreparedStatement delete = c.prepareStatement("DELETE FROM " + TABLE + " WHERE worker_id = ? AND owner = ?")) {
      delete.setInt(1, workerId);
      delete.setString(2, owner);
      delete.executeUpdate();
    } catch (SQLException e) {
      // the row expires after the TTL anyway; nothing is at risk
      lastError = e;
    }
  }

  @Override
  public String toString() {
    return "WorkerLease[worker=" + workerId + ", owner=" + owner + ", control=" + redactedUrl
        + (lostReason != null ? ", lost: " + lostReason : "") + "]";
  }

  // ---------------------------------------------------------------------------------------
  // Used by Snowflake
  // ---------------------------------------------------------------------------------------

  /** The first clock reading at which no id may be issued. */
  long usableUntil() {
    return usableUntil;
  }

  Clock clock() {
    return clock;
  }

  WorkerLeaseLostException lostException(long now) {
    String reason = lostReason;
    if (reason == null) {
      Throwable error = lastError;
      reason = "it was last renewed at " + Instant.ofEpochMilli(lastRenewedAt) + " and the renewal deadline "
          + Instant.ofEpochMilli(usableUntil) + " has passed (clock now " + Instant.ofEpochMilli(now) + ")"
          + (error != null ? "; last renewal error: " + error : "");
    }
    return new WorkerLeaseLostException("Snowflake worker id " + workerId + " leased from " + redactedUrl
        + " (owner " + owner + ") is not safely held any more: " + reason
        + ". No id is issued, because another instance may hold worker " + workerId
        + " now; restart the generator to lease a worker id again.", lastError);
  }

  // ---------------------------------------------------------------------------------------
  // Heartbeat
  // ---------------------------------------------------------------------------------------

  void renew() {
    if (lostReason != null) {
      return;
    }
    long sentAt = clock.millis();
    try (Connection c = connector.connect()) {
      int updated;
      try (PreparedStatement update = c.prepareStatement("UPDATE " + TABLE
          + " SET expires_at = now() + ? * interval '1 millisecond'"
          + " WHERE worker_id = ? AND owner = ? AND expires_at > now()")) {
        update.setLong(1, ttlMillis);
        update.setInt(2, workerId);
        update.setString(3, owner);
        updated = update.executeUpdate();
      }
      if (updated == 1) {
        extend(sentAt);
      } else {
        markLost(describeHolder(c));
      }
    } catch (SQLException | RuntimeException e) {
      lastError = e; // usableUntil stays: generation stops at the deadline unless a later renewal succeeds
    }
  }

  private synchronized void extend(long sentAt) {
    if (lostReason == null) {
      usableUntil = Math.max(usableUntil, sentAt + ttlMillis - marginMillis);
      lastRenewedAt = sentAt;
      lastError = null;
    }
  }

  private synchronized void markLost(String reason) {
    lostReason = reason;
    usableUntil = Long.MIN_VALUE;
    heartbeat.shutdown();
  }

  private String describeHolder(Connection c) throws SQLException {
    try (PreparedStatement select = c.prepareStatement(
        "SELECT owner, expires_at, expires_at <= now() FROM " + TABLE + " WHERE worker_id = ?")) {
      select.setInt(1, workerId);
      try (ResultSet rs = select.executeQuery()) {
        if (!rs.next()) {
          return "its row in " + TABLE + " was deleted";
        }
        String holder = rs.getString(1);
        if (!owner.equals(holder)) {
          return "the row now belongs to " + holder + " (expires " + rs.getTimestamp(2).toInstant() + ")";
        }
        return "the row expired at " + rs.getTimestamp(2).toInstant() + " before it could be renewed";
      }
    }
  }

  @FunctionalInterface
  private interface Connector {
    Connection connect() throws SQLException;
  }

  // ---------------------------------------------------------------------------------------
  // Builder
  // ---------------------------------------------------------------------------------------

  /** Options of a lease; {@link #acquire()} takes one. */
  public static final class Builder {
    private final String jdbcUrl;
    private String user;
    private String password;
    private Duration ttl = Duration.ofSeconds(30);
    private int maxWorkerId = SnowflakeLayout.DEFAULT.maxWorkerId();
    private Clock clock = Clock.system();
    private boolean createTable;

    private Builder(String jdbcUrl) {
      this.jdbcUrl = jdbcUrl;
    }

    public Builder user(String user) {
      this.user = user;
      return this;
    }

    public Builder password(String password) {
      this.password = password;
      return this;
    }

    /**
     * How long a lease lives without renewal (default 30 s, at least 1 s). The heartbeat renews it
     * every {@code ttl/3}; after a crash the id is free again after at most {@code ttl}.
     */
    public Builder ttl(Duration ttl) {
      if (ttl == null || ttl.compareTo(MIN_TTL) < 0) {
        throw new IllegalArgumentException("lease ttl " + ttl + " is too short: use at least " + MIN_TTL
            + " (the default is 30 s)");
      }
      this.ttl = ttl;
      return this;
    }

    /** The highest worker id to hand out, normally {@link SnowflakeLayout#maxWorkerId()} (default 1023). */
    public Builder maxWorkerId(int maxWorkerId) {
      if (maxWorkerId < 0 || maxWorkerId > (1 << 20) - 1) {
        throw new IllegalArgumentException("maxWorkerId = " + maxWorkerId
            + ": use SnowflakeLayout.maxWorkerId(), between 0 and " + ((1 << 20) - 1));
      }
      this.maxWorkerId = maxWorkerId;
      return this;
    }

    /** The clock the renewal deadline is measured on; the {@link Snowflake} using the lease reads the same one. */
    public Builder clock(Clock clock) {
      if (clock == null) {
        throw new IllegalArgumentException("clock is null: use Clock.system()");
      }
      this.clock = clock;
      return this;
    }

    /**
     * Whether {@link #acquire()} creates {@code shardwise.snowflake_worker} when it is missing (which
     * needs {@code CREATE} on the database; {@code shardwise.ddl = create} sets this for
     * {@code @SnowflakeId}). Default false: the table is only checked, and a missing table fails with
     * {@link io.shardwise.hibernate.ShardwiseObjectsMissingException} carrying the SQL to run.
     */
    public Builder createTableIfMissing(boolean create) {
      this.createTable = create;
      return this;
    }

    /**
     * Leases the lowest free worker id and starts the heartbeat.
     *
     * @throws IllegalStateException when every id up to {@code maxWorkerId} is held by a live lease,
     *     or when the control database fails (the SQL error is the cause)
     */
    public WorkerLease acquire() {
      String redacted = JdbcUrls.redact(jdbcUrl);
      Properties timeouts = DriverConnections.timeouts(Math.max(1, ttl.toSeconds() / 3), Math.max(1, ttl.toSeconds()));
      Connector connector = () -> DriverConnections.open(jdbcUrl, user, password, "shardwise-snowflake-lease", timeouts);
      String owner = ownerToken();
      long ttlMillis = ttl.toMillis();
      long sentAt = clock.millis();
      int workerId;
      try (Connection c = connector.connect()) {
        c.setAutoCommit(false);
        try {
          workerId = lease(c, owner, ttlMillis, redacted);
          c.commit();
        } catch (SQLException | RuntimeException e) {
          c.rollback();
          throw e;
        }
      } catch (SQLException e) {
        throw new IllegalStateException("could not lease a Snowflake worker id from " + redacted + ": "
            + e.getMessage(), e);
      }
      return new WorkerLease(workerId, owner, redacted, connector, ttlMillis, clock,
          sentAt + ttlMillis - ttlMillis / 5);
    }

    private int lease(Connection c, String owner, long ttlMillis, String redacted) throws SQLException {
      // the lock also serializes the choice of a free id below, until this transaction commits
      ShardwiseDdl.Feature feature = ShardwiseDdl.Feature.WORKER_LEASES;
      String[] ddl = {};
      try {
        OwnObjects.check(c, "the worker-lease database", feature);
      } catch (ShardwiseObjectsMissingException missing) {
        if (!createTable) {
          throw missing;
        }
        ddl = feature.statements().toArray(String[]::new); // only a missing table or column needs DDL
      }
      LockedDdl.runInTransaction(c, TABLE, ddl);
      Integer free = null;
      try (PreparedStatement select = c.prepareStatement("SELECT g FROM generate_series(0, ?) g"
          + " WHERE NOT EXISTS (SELECT 1 FROM " + TABLE + " w WHERE w.worker_id = g AND w.expires_at > now())"
          + " ORDER BY g LIMIT 1")) {
        select.setInt(1, maxWorkerId);
        try (ResultSet rs = select.executeQuery()) {
          if (rs.next()) {
            free = rs.getInt(1);
          }
        }
      }
      if (free == null) {
        throw new IllegalStateException("all " + (maxWorkerId + 1) + " Snowflake worker ids (0.." + maxWorkerId
            + ") in " + TABLE + " at " + redacted + " are leased by live instances: stop an instance, wait for"
            + " stale leases to expire (ttl), or use a layout with more worker bits");
      }
      try (PreparedStatement upsert = c.prepareStatement("INSERT INTO " + TABLE
          + " (worker_id, owner, acquired_at, expires_at) VALUES (?, ?, now(), now() + ? * interval '1 millisecond')"
          + " ON CONFLICT (worker_id) DO UPDATE SET owner = EXCLUDED.owner, acquired_at = EXCLUDED.acquired_at,"
          + " expires_at = EXCLUDED.expires_at WHERE " + TABLE + ".expires_at <= now()")) {
        upsert.setInt(1, free);
        upsert.setString(2, owner);
        upsert.setLong(3, ttlMillis);
        if (upsert.executeUpdate() != 1) {
          // cannot happen under the advisory lock; refuse rather than share an id
          throw new IllegalStateException("worker id " + free + " in " + TABLE + " at " + redacted
              + " was leased by someone else meanwhile; try again");
        }
      }
      return free;
    }

    private static String ownerToken() {
      String host;
      try {
        host = java.net.InetAddress.getLocalHost().getHostName();
      } catch (java.io.IOException | SecurityException e) {
        host = "unknown-host";
      }
      return host + "/pid-" + ProcessHandle.current().pid() + "/" + UUID.randomUUID();
    }
  }
}
