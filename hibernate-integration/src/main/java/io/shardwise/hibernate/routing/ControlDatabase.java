package io.shardwise.hibernate.routing;

import io.shardwise.hibernate.internal.jdbc.DriverConnections;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.ShardwiseDdl;
import io.shardwise.hibernate.internal.jdbc.OwnObjects;
import io.shardwise.hibernate.internal.jdbc.ServerTimeouts;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * The shard map's home: a PostgreSQL database (any database; it needs no extension) holding the
 * schema {@code shardwise} with three tables:
 *
 * <ul>
 *   <li>{@code shardwise.shard(id, primary_url, replica_urls text[], weight, state)}: the physical
 *       shards;
 *   <li>{@code shardwise.bucket(bucket int primary key, shard_id, read_shard_id, copy_shard_id)}:
 *       which shard owns each bucket, which serves its reads while an online move has switched them
 *       (else null), and which holds a second copy of its rows while it moves (else null);
 *   <li>{@code shardwise.map_version(version)}: one row, the version of the map.
 * </ul>
 *
 * <p>Every change goes through this class and happens in one transaction that also raises the
 * version by one and sends {@code NOTIFY shardwise_shard_map, '<new version>'}, so running routers
 * ({@link ControlDatabaseShardMapSource}) see it within milliseconds. Writers serialize on the
 * version row ({@code SELECT ... FOR UPDATE}): two concurrent changes are applied one after the
 * other, and neither is lost. A change computed from a map you loaded earlier should say so with
 * {@link #assignBuckets(long, Map)}, which refuses to apply it if the map moved on meanwhile.
 *
 * <pre>{@code
 * ControlDatabase control = new ControlDatabase("jdbc:postgresql://control:5432/shardwise", "shardwise", secret);
 * control.createSchema();
 * control.initialize(ShardMap.evenlyAssigned(1, List.of(
 *     ShardDescriptor.of("s1", "jdbc:postgresql://db1:5432/app"),
 *     ShardDescriptor.of("s2", "jdbc:postgresql://db2:5432/app")), ShardMap.DEFAULT_BUCKETS));
 * // later: move bucket 7 to s2, only if nobody changed the map since version 1
 * control.assignBuckets(1, Map.of(7, "s2"));
 * }</pre>
 *
 * <p>Instances are cheap and thread-safe; each operation opens and closes its own connection
 * (shard map changes are rare, so nothing is pooled).
 *
 * <p>This file owns the public operations, their transactions (lock the version row, change, raise,
 * notify) and their errors; the SQL of the map's tables is {@link ShardMapTables}', that of router
 * leases {@link RouterLeaseTable}'s, the write switch's staged change (its announcement, the map
 * it announces, its statement, a prepared one's rollback) {@link StagedChanges}', and a router
 * following the map is {@link ControlDatabaseShardMapSource}.
 */
public final class ControlDatabase {
  /** How long staging an assignment waits for another change of the map to finish. */
  private static final long STAGE_LOCK_TIMEOUT_MS = 5_000;

  /**
   * The channel of the notification sent on every change; its payload is the new version (followed,
   * for a change a write switch staged, by the token of its {@linkplain #announceStaged(long, Map)
   * announcement}).
   */
  public static final String CHANNEL = "shardwise_shard_map";

  /**
   * The timeouts of every connection this class opens unless {@link #withTimeouts} says otherwise
   * ({@code shardwise.control.lock_timeout_ms} and {@code statement_timeout_ms}'s defaults).
   */
  public static final long DEFAULT_LOCK_TIMEOUT_MS = 5_000;

  public static final long DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;

  private static final String TIMEOUT_SETTINGS = "shardwise.control.lock_timeout_ms, statement_timeout_ms";

  private final String jdbcUrl;
  private final String user;
  private final String password;
  private final ServerTimeouts timeouts;

  /**
   * @param jdbcUrl a PostgreSQL JDBC URL, e.g. {@code jdbc:postgresql://control:5432/shardwise}
   * @param user the role to connect as; it needs CREATE on the database for {@link #createSchema()}
   * @param password the role's password, or null (trust or peer authentication, or a .pgpass)
   */
  public ControlDatabase(String jdbcUrl, String user, String password) {
    if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("The control database needs a PostgreSQL JDBC URL such as "
          + "jdbc:postgresql://host:5432/shardwise; was '" + JdbcUrls.redact(jdbcUrl) + "'");
    }
    this.jdbcUrl = jdbcUrl;
    this.user = user;
    this.password = password;
    this.timeouts = new ServerTimeouts(DEFAULT_LOCK_TIMEOUT_MS, DEFAULT_STATEMENT_TIMEOUT_MS, TIMEOUT_SETTINGS);
  }

  private ControlDatabase(ControlDatabase base, ServerTimeouts timeouts) {
    this.jdbcUrl = base.jdbcUrl;
    this.user = base.user;
    this.password = base.password;
    this.timeouts = timeouts;
  }

  /**
   * The same control database, whose connections wait at most {@code lockTimeoutMs} for a lock and
   * run a statement at most {@code statementTimeoutMs} (server-side {@code lock_timeout} and
   * {@code statement_timeout}; both at least 1). A statement that exceeds one fails with
   * {@link ControlDatabaseException} naming what held the lock (a prepared transaction by its gid).
   */
  public ControlDatabase withTimeouts(long lockTimeoutMs, long statementTimeoutMs) {
    return new ControlDatabase(this, new ServerTimeouts(lockTimeoutMs, statementTimeoutMs, TIMEOUT_SETTINGS));
  }

  /** The URL with its credentials masked, for messages and logs. */
  public String displayUrl() {
    return JdbcUrls.redact(jdbcUrl);
  }

  // ---------------------------------------------------------------------------------------------
  // Schema and whole-map operations
  // ---------------------------------------------------------------------------------------------

  /**
   * Creates the {@code shardwise} schema and its tables unless they exist; safe to call every start.
   * Reads the catalog first and runs DDL only when something is missing, so a complete schema is
   * never locked (DDL would queue behind any transaction holding the map's rows, a prepared one
   * included). Needs {@code CREATE} on the database; without it, an administrator runs
   * {@code ShardwiseDdl.Feature.SHARD_MAP.script(role)} once instead.
   */
  public void createSchema() {
    withConnection("create the shardwise schema", "shardwise-control", c -> {
      OwnObjects.ensure(c, true, "the control database", ShardwiseDdl.Feature.SHARD_MAP);
      return null;
    });
  }

  /**
   * Checks, reading the catalog only, that the shard map's tables exist and that this role may read
   * them; otherwise throws {@link io.shardwise.hibernate.ShardwiseObjectsMissingException} with the SQL
   * to run. What the application calls at start when {@code shardwise.ddl} is not {@code create}.
   */
  public void checkSchema() {
    inTransaction("check the shardwise schema", c -> {
      OwnObjects.check(c, "the control database", ShardwiseDdl.Feature.SHARD_MAP);
      return null;
    });
  }

  /**
   * Creates ({@code create}) or checks the table of router leases ({@code shardwise.router}, {@link
   * ShardwiseDdl.Feature#ROUTER_LEASES}); needed by routers with a lease and by online moves.
   */
  public void prepareRouterTable(boolean create) {
    withConnection(create ? "create the router lease table" : "check the router lease table", "shardwise-control",
        c -> {
          OwnObjects.ensure(c, create, "the control database", ShardwiseDdl.Feature.ROUTER_LEASES);
          return null;
        });
  }

  /**
   * A router that follows the map with a lease, as registered in {@code shardwise.router}.
   *
   * @param id unique per running router (host, process and a random part)
   * @param host the host name of its process
   * @param pid its process id
   * @param unit the persistence unit it routes for
   * @param version the shard map version it routes with (acknowledged)
   * @param leaseMs how long it keeps routing without confirming its map with the control database
   * @param sinceSeenMs milliseconds since its last heartbeat, by the control database's clock
   */
  public record RouterLease(String id, String host, long pid, String unit, long version, long leaseMs,
      long sinceSeenMs) {
    /** Whether its lease still runs: a router whose lease ran out refuses routed work until it confirms its map. */
    public boolean live() {
      return sinceSeenMs < leaseMs;
    }

    @Override
    public String toString() {
      return id + " (unit " + unit + ", map version " + version + ", seen " + sinceSeenMs + " ms ago, lease "
          + leaseMs + " ms)";
    }
  }

  /**
   * Every registered router, live or not, by id; routers remove their row when they close. Empty
   * when the table of router leases does not exist (no router with a lease ever ran).
   */
  public List<RouterLease> routers() {
    return withConnection("list the routers", "shardwise-control", RouterLeaseTable::list);
  }

  /**
   * Removes the rows of routers whose lease ran out more than {@code olderThanMs} ago (crashed
   * processes); they would be refused anyway and re-register when they reach the database again.
   */
  public int removeExpiredRouters(long olderThanMs) {
    return withConnection("remove expired routers", "shardwise-control",
        c -> RouterLeaseTable.removeExpired(c, olderThanMs));
  }

  /**
   * Stores {@code map} (with its version) if the control database holds no map yet, and returns the
   * stored map. If it already holds the same shards and bucket owners, nothing changes and the
   * stored map is returned, so every application instance may call this at start. If it holds a
   * different map, this refuses: a running deployment is changed with {@link #upsertShard},
   * {@link #setShardState} and {@link #assignBuckets}, never overwritten.
   *
   * @throws IllegalStateException if a different map is stored
   */
  public ShardMap initialize(ShardMap map) {
    Objects.requireNonNull(map, "initialize needs a shard map");
    return inTransaction("initialize the shard map", c -> {
      int inserted;
      try (PreparedStatement ps = c.prepareStatement(
          "INSERT INTO shardwise.map_version (version) VALUES (?) ON CONFLICT DO NOTHING")) {
        ps.setLong(1, map.version());
        inserted = ps.executeUpdate();
      }
      if (inserted == 0) {
        try (Statement s = c.createStatement()) {
          s.execute("SELECT version FROM shardwise.map_version FOR SHARE");
        }
        ShardMap existing = ShardMapTables.readMapInTransaction(c);
        String difference = ShardMapTables.difference(existing, map);
        if (difference != null) {
          throw new IllegalStateException("The control database " + displayUrl() + " already holds shard map version "
              + existing.version() + ", which differs from the map given to initialize(): " + difference
              + ". initialize() never overwrites a map: change it with upsertShard, setShardState and assignBuckets, "
              + "or drop the schema shardwise to start over.");
        }
        return existing;
      }
      for (ShardDescriptor shard : map.shards().values()) {
        ShardMapTables.writeShard(c, shard);
      }
      ShardMapTables.insertBuckets(c, map);
      ShardMapTables.notifyVersion(c, map.version());
      return map;
    });
  }

  /**
   * Reads the whole map in one consistent snapshot.
   *
   * @throws IllegalStateException if the control database holds no map yet
   */
  public ShardMap load() {
    return withConnection("load the shard map", "shardwise-control", c -> {
      ShardMap map = readMap(c);
      if (map == null) {
        throw notInitialized();
      }
      return map;
    });
  }

  /** The stored version: one indexed single-row read, cheap enough to poll. */
  public long version() {
    return withConnection("read the shard map version", "shardwise-control", c -> {
      long version = readVersion(c);
      if (version < 0) {
        throw notInitialized();
      }
      return version;
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Changes: each bumps the version and notifies in the same transaction
  // ---------------------------------------------------------------------------------------------

  /**
   * Adds a shard, or replaces the URLs, weight and state of the shard with the same id. A new shard
   * owns no bucket until {@link #assignBuckets} gives it some.
   *
   * @return the new version of the map
   */
  public long upsertShard(ShardDescriptor shard) {
    Objects.requireNonNull(shard, "upsertShard needs a shard descriptor");
    return change("upsert shard " + shard.id(), -1, c -> ShardMapTables.writeShard(c, shard));
  }

  /**
   * Sets the state of an existing shard.
   *
   * @return the new version of the map
   * @throws IllegalArgumentException if no shard has this id
   */
  public long setShardState(String shardId, ShardState state) {
    Objects.requireNonNull(state, () -> "setShardState(" + shardId + ") needs a state");
    return change("set the state of shard " + shardId + " to " + state, -1, c -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE shardwise.shard SET state = ? WHERE id = ?")) {
        ps.setString(1, state.name());
        ps.setString(2, shardId);
        if (ps.executeUpdate() == 0) {
          throw new IllegalArgumentException("No shard '" + shardId + "' in the shard map of control database "
              + displayUrl() + " (shards: " + ShardMapTables.shardIds(c) + "); add it with upsertShard first");
        }
      }
    });
  }

  /**
   * Gives each listed bucket to the listed shard, e.g. {@code Map.of(7, "s2", 8, "s2")} to move
   * buckets 7 and 8 to shard s2. All or nothing: if any bucket or shard is unknown, nothing changes
   * and the message lists every bad entry.
   *
   * @return the new version of the map
   */
  public long assignBuckets(Map<Integer, String> owners) {
    return assignBuckets(-1, owners);
  }

  /**
   * Switches the reads of buckets to another shard while their owner keeps their writes (the read
   * switch of an online move); a null or the owner's id switches a bucket's reads back. Only if the
   * stored map still has version {@code expectedVersion} (or any version when it is negative).
   * {@link #assignBuckets} clears the read switch of every bucket it assigns.
   *
   * @return the new version of the map
   * @throws ShardMapConflictException if another writer changed the map since that version
   */
  public long switchReads(long expectedVersion, Map<Integer, String> readers) {
    return setSecondShard("switchReads", "read_shard_id", "switch the reads of", "be read from", "switch reads",
        expectedVersion, readers);
  }

  /**
   * Records which shard holds a second copy of each listed bucket's rows (an online move copies
   * them to its target), or clears it where the value is null or the owner. Scatter-gather then
   * reads such a bucket from its read owner only. {@link #assignBuckets} keeps the record straight:
   * a bucket given to the shard holding its copy leaves the copy on its old owner.
   *
   * @return the new version of the map
   */
  public long setCopyHolders(Map<Integer, String> holders) {
    return setSecondShard("setCopyHolders", "copy_shard_id", "record the copies of", "have a copy on",
        "record bucket copies", -1, holders);
  }

  /**
   * Sets a per-bucket shard column besides the owner ({@code read_shard_id}, {@code copy_shard_id});
   * a null or the owner's id clears it. All or nothing, with every bad entry in the message.
   */
  private long setSecondShard(String method, String column, String operation, String verb, String refused,
      long expectedVersion, Map<Integer, String> shardOfBucket) {
    Objects.requireNonNull(shardOfBucket, method + " needs a map of bucket to shard id");
    if (shardOfBucket.isEmpty()) {
      throw new IllegalArgumentException(method + " needs at least one bucket");
    }
    Map<Integer, String> sorted = new TreeMap<>(shardOfBucket);
    return change(operation + " " + sorted.size() + " bucket(s)", expectedVersion, c -> {
      Set<String> shards = ShardMapTables.shardIds(c);
      int bucketCount = ShardMapTables.bucketCount(c);
      List<String> problems = new ArrayList<>();
      sorted.forEach((bucket, shard) -> {
        if (bucket == null || bucket < 0 || bucket >= bucketCount) {
          problems.add("bucket " + bucket + " does not exist (the map has buckets 0.." + (bucketCount - 1) + ")");
        } else if (shard != null && !shards.contains(shard)) {
          problems.add("bucket " + bucket + " cannot " + verb + " shard '" + shard + "', which is not in the map");
        }
      });
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException("Refused to " + refused + " in control database " + displayUrl()
            + "; nothing changed: " + String.join("; ", problems));
      }
      ShardMapTables.setSecondShard(c, column, sorted);
    });
  }

  /**
   * Like {@link #assignBuckets(Map)}, but only if the stored map still has version
   * {@code expectedVersion}: use it when the assignment was computed from a map read earlier.
   *
   * @throws ShardMapConflictException if another writer changed the map since that version
   */
  public long assignBuckets(long expectedVersion, Map<Integer, String> owners) {
    Objects.requireNonNull(owners, "assignBuckets needs a map of bucket to shard id");
    if (owners.isEmpty()) {
      throw new IllegalArgumentException("assignBuckets needs at least one bucket to assign");
    }
    Map<Integer, String> sorted = new TreeMap<>();
    owners.forEach((bucket, shard) -> {
      if (bucket == null || shard == null) {
        throw new IllegalArgumentException("assignBuckets: bucket " + bucket + " -> shard " + shard
            + " has a null; give every bucket a shard id");
      }
      sorted.put(bucket, shard);
    });
    return change("assign " + sorted.size() + " bucket(s)", expectedVersion, assignment(sorted));
  }

  /**
   * {@link #assignBuckets(long, Map)} on a connection the caller opened beforehand with
   * {@link #openConnection}, so that the change costs no connection set-up: for a change made while
   * writes wait (the write switch of an online move). Commits on that connection.
   */
  public long assignBuckets(Connection connection, long expectedVersion, Map<Integer, String> owners) {
    Map<Integer, String> sorted = new TreeMap<>(Objects.requireNonNull(owners, "owners"));
    try {
      return changeOn(connection, "assign " + sorted.size() + " bucket(s)", expectedVersion, assignment(sorted));
    } catch (SQLException e) {
      throw new ControlDatabaseException("Could not assign buckets in control database " + displayUrl() + ": "
          + e.getMessage(), e);
    }
  }

  /** A connection to the control database for {@link #assignBuckets(Connection, long, Map)}; the caller closes it. */
  public Connection openConnection(String applicationName) {
    try {
      return connect(applicationName, new Properties());
    } catch (SQLException e) {
      throw new ControlDatabaseException("Could not connect to control database " + displayUrl() + ": "
          + e.getMessage(), e);
    }
  }

  /**
   * Validates a bucket assignment now, on {@code connection}, and stages it so that {@link
   * StagedAssignment#commit} costs as little as possible inside a write switch's freeze. With
   * {@code preparedName} and prepared transactions enabled ({@code max_prepared_transactions > 0}),
   * the whole change (version, buckets, their foreign-key checks) is done now and left as the prepared
   * transaction {@code preparedName}: the commit is {@code COMMIT PREPARED} plus the notification.
   * Otherwise the change is committed later as a single statement. A staged assignment that is not
   * committed must be {@linkplain StagedAssignment#abort() aborted}; one left behind by a process that
   * died is removed by {@link #abortStaged(String)}.
   *
   * @throws IllegalArgumentException if a bucket or shard does not exist; nothing changes
   * @throws ShardMapConflictException if the map is no longer at {@code expectedVersion}
   */
  public StagedAssignment stageAssignment(Connection connection, long expectedVersion, Map<Integer, String> owners,
      String preparedName) {
    return stageAssignment(connection, expectedVersion, owners, preparedName,
        Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong()));
  }

  /**
   * {@link #stageAssignment(Connection, long, Map, String)} for a change {@linkplain #announceStaged
   * announced} with {@code token}: its commit's notification names the token, so that the routers
   * install the map they computed from the announcement instead of reading it.
   */
  public StagedAssignment stageAssignment(Connection connection, long expectedVersion, Map<Integer, String> owners,
      String preparedName, String token) {
    if (token == null || !token.matches("[0-9a-f]{1,16}")) {
      throw new IllegalArgumentException("A staged assignment's token is the hex string announceStaged returned, not '"
          + token + "'");
    }
    Map<Integer, String> sorted = new TreeMap<>(Objects.requireNonNull(owners, "owners"));
    try {
      ShardMapTables.validateAssignment(connection, sorted, displayUrl());
      StagedAssignment staged = new StagedAssignment(connection, expectedVersion, sorted, token);
      if (preparedName != null) {
        staged.prepare(preparedName, sorted);
      }
      return staged;
    } catch (SQLException e) {
      throw new ControlDatabaseException("Could not stage a bucket assignment in control database " + displayUrl()
          + ": " + e.getMessage(), e);
    }
  }

  /**
   * Rolls back the prepared transaction {@code preparedName} of a staged assignment if it exists
   * (its process died before committing or aborting it); otherwise does nothing.
   */
  public void abortStaged(String preparedName) {
    withConnection("abort a staged assignment", "shardwise-control", c -> {
      StagedChanges.rollbackPrepared(c, preparedName);
      return null;
    });
  }

  /**
   * Rolls back the prepared transaction {@code preparedName} if it exists and no session connected
   * to the control database carries one of {@code holderApplicationNames} (the process that staged
   * it is gone: its connection closed with it); returns true if it was rolled back.
   */
  public boolean abortStagedOfDeadProcess(String preparedName, List<String> holderApplicationNames) {
    return withConnection("abort a staged assignment", "shardwise-control", c -> {
      try (PreparedStatement ps = c.prepareStatement("SELECT EXISTS (SELECT 1 FROM pg_prepared_xacts WHERE gid = ?"
          + " AND database = current_database()), EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname ="
          + " current_database() AND application_name = ANY (?))")) {
        ps.setString(1, preparedName);
        ps.setArray(2, c.createArrayOf("text", holderApplicationNames.toArray()));
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (!rs.getBoolean(1) || rs.getBoolean(2)) {
            return false;
          }
        }
      }
      StagedChanges.rollbackPrepared(c, preparedName);
      return true;
    });
  }

  /**
   * A bucket assignment validated (and, where possible, prepared) by {@link #stageAssignment};
   * {@link #commit} applies it on the connection it was staged on, {@link #abort} drops it.
   */
  public final class StagedAssignment {
    private final Connection connection;
    private final long expectedVersion;
    /** Tells this change's commit notification from any other change's to the same version. */
    private final String token;
    private final String sql;
    private String preparedName;
    private boolean done;

    private StagedAssignment(Connection connection, long expectedVersion, Map<Integer, String> sorted, String token) {
      this.connection = connection;
      this.expectedVersion = expectedVersion;
      this.token = token;
      this.sql = StagedChanges.assignmentSql(expectedVersion, sorted);
    }

    /** Runs the change now as a prepared transaction; stays unprepared when prepared transactions are off. */
    private void prepare(String name, Map<Integer, String> sorted) throws SQLException {
      if (ShardMapTables.intSetting(connection, "max_prepared_transactions") == 0) {
        return;
      }
      connection.setAutoCommit(false);
      try {
        try (Statement s = connection.createStatement()) {
          s.execute("SET LOCAL lock_timeout = '" + STAGE_LOCK_TIMEOUT_MS + "ms'");   // another change holds the map
        }
        try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(sql.formatted(""))) {
          if (!rs.next()) {
            connection.rollback();
            throw conflict();
          }
        }
        try (Statement s = connection.createStatement()) {
          s.execute("PREPARE TRANSACTION '" + name.replace("'", "''") + "'");
        }
        preparedName = name;
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      } finally {
        connection.setAutoCommit(true);
      }
    }

    /** Whether the change is a prepared transaction waiting for {@link #commit}. */
    public boolean prepared() {
      return preparedName != null;
    }

    /**
     * Commits the assignment within {@code timeoutMillis} (the unprepared statement runs under that
     * statement timeout; a prepared one is only committed) and notifies the routers: either all of it
     * or, on an exception with a server's answer, nothing (a timeout's SQLSTATE 57014 is in the cause).
     *
     * @return the new map version
     * @throws ShardMapConflictException if the map is no longer at the expected version
     */
    public long commit(long timeoutMillis) {
      try (Statement s = connection.createStatement()) {
        if (preparedName != null) {
          s.execute("COMMIT PREPARED '" + preparedName.replace("'", "''") + "'");
          done = true;
          return expectedVersion + 1;   // the routers hear of it from announce()
        }
        // one round trip: the timeout and the change are sent together (the SET is undone if the change fails)
        boolean rows = s.execute("SET statement_timeout = " + Math.max(1, timeoutMillis) + "; "
            + sql.formatted(", pg_notify('" + CHANNEL + "', v.version::text || ' " + token + "')"));
        while (!rows && s.getUpdateCount() != -1) {
          rows = s.getMoreResults();
        }
        try (ResultSet rs = s.getResultSet()) {
          if (rs != null && rs.next()) {
            done = true;
            return rs.getLong(1);
          }
        }
        throw conflict();
      } catch (SQLException e) {
        throw new ControlDatabaseException("Could not assign buckets in control database " + displayUrl() + " within "
            + timeoutMillis + " ms: " + e.getMessage(), e);
      }
    }

    /**
     * Notifies the routers of a committed prepared change (a statement of its own, which a write
     * switch sends after releasing its freeze); the unprepared statement notified already. A failure
     * is ignored: the routers find the version at their next check, or when a fence names it.
     */
    public void announce() {
      if (preparedName == null || !done) {
        return;
      }
      try (Statement s = connection.createStatement()) {
        s.execute("SELECT pg_notify('" + CHANNEL + "', '" + (expectedVersion + 1) + " " + token + "')");
      } catch (SQLException notified) {
        // committed all the same
      }
    }

    /** Drops the staged change unless it was committed; on a new connection if the staging one broke. */
    public void abort() {
      if (done || preparedName == null) {
        return;
      }
      try {
        StagedChanges.rollbackPrepared(connection, preparedName);
      } catch (SQLException e) {
        abortStaged(preparedName);
      }
      done = true;
    }

    private ShardMapConflictException conflict() throws SQLException {
      long current = readVersion(connection);
      return new ShardMapConflictException("Cannot assign buckets in control database " + displayUrl() + ": the "
          + "change was computed from shard map version " + expectedVersion + " but the map is now at version " + current
          + ". Load the map again, recompute the change and retry.", expectedVersion, current);
    }
  }

  private SqlChange assignment(Map<Integer, String> sorted) {
    return c -> {
      ShardMapTables.validateAssignment(c, sorted, displayUrl());
      ShardMapTables.assignOwners(c, sorted);
    };
  }

  // ---------------------------------------------------------------------------------------------
  // Package-private: used by ControlDatabaseShardMapSource on its own connection
  // ---------------------------------------------------------------------------------------------

  /** Opens a connection; {@code extra} properties (timeouts) are added to the credentials. */
  Connection connect(String applicationName, Properties extra) throws SQLException {
    Properties options = new Properties();
    options.putAll(extra);
    options.putIfAbsent("connectTimeout", "10");
    options.putIfAbsent("socketTimeout", Long.toString(timeouts.socketTimeoutSeconds()));
    return timeouts.appliedTo(DriverConnections.open(jdbcUrl, user, password, applicationName, options));
  }

  /** The whole map in one REPEATABLE READ snapshot, or null if none is stored; leaves autocommit on. */
  static ShardMap readMap(Connection c) throws SQLException {
    return ShardMapTables.readMap(c);
  }

  /** The stored version, or -1 if none. */
  static long readVersion(Connection c) throws SQLException {
    return ShardMapTables.readVersion(c);
  }

  /** See {@link RouterLeaseTable#heartbeat}. */
  static void heartbeat(Connection c, RouterLease r, long version) throws SQLException {
    RouterLeaseTable.heartbeat(c, r, version);
  }

  /** Removes router {@code id}'s row (it closed). */
  static void unregister(Connection c, String id) throws SQLException {
    RouterLeaseTable.unregister(c, id);
  }

  IllegalStateException notInitialized() {
    return new IllegalStateException("The control database " + displayUrl() + " holds no shard map yet; "
        + "call ControlDatabase.createSchema() and initialize(map) first");
  }

  // ---------------------------------------------------------------------------------------------
  // Internals
  // ---------------------------------------------------------------------------------------------

  /**
   * Tells the routers, before a change commits, what the map will be if it does: each follower
   * ({@link ControlDatabaseShardMapSource}) whose map is at {@code expectedVersion} computes the next
   * one now, hands it to its staged listeners (which open connections to the shards that gain
   * buckets) and installs it, without reading the control database, when the commit of the
   * assignment staged with the returned token is announced. Nothing routes by a staged map before
   * that. An online move's write switch calls this before it sets up its freeze.
   *
   * @return the token to stage the assignment with ({@link #stageAssignment(Connection, long, Map,
   *     String, String)}); a fresh token when nothing could be announced (shard ids with spaces,
   *     {@code =} or {@code ;}, a payload over 7,900 bytes, the control database unreachable): the
   *     routers then load the map when the commit is announced, as for any other change
   */
  public String announceStaged(long expectedVersion, Map<Integer, String> owners) {
    return StagedChanges.announce(this, expectedVersion, owners);
  }

  /**
   * Runs {@code work} in a transaction that first locks the version row (so writers serialize),
   * then raises the version and notifies. Returns the new version.
   */
  private long change(String operation, long expectedVersion, SqlChange work) {
    return withConnection(operation, "shardwise-control", c -> changeOn(c, operation, expectedVersion, work));
  }

  private long changeOn(Connection c, String operation, long expectedVersion, SqlChange work) throws SQLException {
    boolean autoCommit = c.getAutoCommit();
    c.setAutoCommit(false);
    try {
      long next = changeInTransaction(c, operation, expectedVersion, work);
      c.commit();
      return next;
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(autoCommit);
    }
  }

  private long changeInTransaction(Connection c, String operation, long expectedVersion, SqlChange work)
      throws SQLException {
    {
      long current;
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT version FROM shardwise.map_version FOR UPDATE")) {
        if (!rs.next()) {
          throw notInitialized();
        }
        current = rs.getLong(1);
      }
      if (expectedVersion >= 0 && expectedVersion != current) {
        throw new ShardMapConflictException("Cannot " + operation + " in control database " + displayUrl()
            + ": the change was computed from shard map version " + expectedVersion + " but the map is now at version "
            + current + ". Load the map again, recompute the change and retry.", expectedVersion, current);
      }
      work.apply(c);
      long next = current + 1;
      try (PreparedStatement ps = c.prepareStatement("UPDATE shardwise.map_version SET version = ?")) {
        ps.setLong(1, next);
        ps.executeUpdate();
      }
      ShardMapTables.notifyVersion(c, next);
      return next;
    }
  }

  private <T> T inTransaction(String operation, SqlWork<T> work) {
    return withConnection(operation, "shardwise-control", c -> {
      c.setAutoCommit(false);
      try {
        T result = work.apply(c);
        c.commit();
        return result;
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      }
    });
  }

  <T> T withConnection(String operation, String applicationName, SqlWork<T> work) {
    try (Connection c = connect(applicationName, new Properties())) {
      try {
        return work.apply(c);
      } catch (SQLException e) {
        throw timeouts.explain(c, e);
      }
    } catch (SQLException e) {
      String hint = switch (String.valueOf(e.getSQLState())) {
        case "42P01", "3F000" -> " The shardwise schema is missing: call createSchema() first.";
        case "08001", "08006", "08004", "28000", "28P01", "3D000" -> " Check the URL, that the server runs, and "
            + "the user and password.";
        default -> "";
      };
      throw new ControlDatabaseException("Could not " + operation + " in control database " + displayUrl()
          + " as user " + user + ": " + e.getMessage() + "." + hint, e);
    }
  }

  @FunctionalInterface
  interface SqlWork<T> {
    T apply(Connection c) throws SQLException;
  }

  @FunctionalInterface
  private interface SqlChange {
    void apply(Connection c) throws SQLException;
  }

  @Override
  public String toString() {
    return "ControlDatabase{" + displayUrl() + "}";
  }
}
