package io.shardwise.hibernate.routing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * Follows the shard map kept in a {@link ControlDatabase}: loads it when started, then swaps in
 * each new version within milliseconds of its commit.
 *
 * <pre>{@code
 * ShardMapSource maps = ControlDatabaseShardMapSource.builder(controlDatabase)
 *     .versionCheckInterval(Duration.ofSeconds(1))   // the default
 *     .start();                                       // fails fast if the map cannot be loaded
 * }</pre>
 *
 * <h2>How it stays current</h2>
 *
 * <p>One daemon thread per source owns one connection to the control database. The connection
 * runs {@code LISTEN shardwise_shard_map} and the thread waits in pgjdbc's
 * {@code getNotifications(timeout)}, which blocks on the socket: no polling loop, no spinning.
 * Every change made through {@link ControlDatabase} notifies with its new version in the same
 * transaction, so the thread wakes when the change commits, reloads the whole map in one
 * REPEATABLE READ snapshot (if the announced version is newer than the current one) and publishes
 * it.
 *
 * <p>Notifications can be lost: the connection may break, and NOTIFY is not delivered to a session
 * that was not listening at the time. Two safety nets cover that:
 *
 * <ul>
 *   <li>every {@code versionCheckInterval} the thread reads the stored version (one single-row
 *       query) and reloads if it is newer than the current snapshot;
 *   <li>when the connection fails, the thread reconnects with exponential backoff (from 50 ms up
 *       to {@code maxReconnectBackoff}), issues LISTEN again and <em>then</em> checks the version,
 *       so a change committed while it was disconnected is loaded as soon as it is back.
 * </ul>
 *
 * <p>While disconnected, routing continues on the last snapshot — for at most the router's lease,
 * when it has one.
 *
 * <h2>Staged changes</h2>
 *
 * <p>An online move's write switch announces its change before it freezes writes
 * ({@link ControlDatabase#announceStaged}): a notification carrying the buckets and their new
 * owners, and a token. A source whose map is at the version the change was staged on computes the
 * next map from it and hands it to its {@linkplain #addStagedListener staged listeners} (the router
 * builds its routing, the pools open connections to the shard that gains the buckets); nothing
 * routes by it. When the commit's notification names the same token (and the map is still at the
 * staged-on version), the follower publishes that map without reading the control database: a
 * write refused at the flip finds the new map installed. Any other notification is loaded as before.
 *
 * <h2>Router lease</h2>
 *
 * <p>With {@link Builder#routerLease(Duration, String)}, the source registers its router in
 * {@code shardwise.router} (id, host, pid, persistence unit, lease) and keeps that row current: an
 * upsert of the map version it routes with whenever that changes (the <em>acknowledgement</em>,
 * written after every listener has installed the map), and a heartbeat every third of the lease,
 * which first reads the stored version and loads a newer map. An online move waits until every
 * router whose lease runs has acknowledged the map version that carries its change. A router that
 * cannot write its heartbeat for a whole lease, counted from the start of the last one that
 * succeeded (so never later than the control database counts it), is <em>stale</em>:
 * {@link #checkFresh()} throws {@link ShardMapStaleException} until a heartbeat succeeds again,
 * and the move, which no longer waits for it, cannot make it read or write the wrong shard.
 *
 * <h2>Thread safety</h2>
 *
 * <p>The follower thread (and {@link #refresh()}, when a caller asks) publishes new snapshots, one
 * publisher at a time; {@link #current()} is a volatile field holding an immutable
 * {@link ShardMap}, and versions only ever go up. Listeners are called by the publisher after the
 * new snapshot is visible through {@link #current()}. Publishing and waiting for a publication use a
 * {@code ReentrantLock} and its {@code Condition}, no monitor, so that a virtual thread whose write
 * was refused by a move's fence waits without pinning its carrier. {@link #close()} sets a
 * flag, aborts the connection (which wakes the thread from its blocking read), wakes it from a
 * backoff pause, and joins it.
 */
public final class ControlDatabaseShardMapSource implements ShardMapSource {
  private static final System.Logger LOG = System.getLogger(ControlDatabaseShardMapSource.class.getName());
  private static final AtomicInteger SEQUENCE = new AtomicInteger();
  private static final long INITIAL_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(10);
  /**
   * How long {@link #refresh(long)} waits for the follower to publish an announced version before
   * loading the map itself: a write refused by a move's fence comes back right after the map change
   * committed and notified, and the follower's load on its open connection is cheaper than a new one.
   */
  private static final long FOLLOWER_WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private final ControlDatabase control;
  private final String name;
  private final long checkIntervalNanos;
  private final long maxBackoffNanos;
  private final Properties connectionProperties;
  private final CopyOnWriteArrayList<Consumer<ShardMap>> listeners = new CopyOnWriteArrayList<>();
  private final CopyOnWriteArrayList<Consumer<ShardMap>> stagedListeners = new CopyOnWriteArrayList<>();
  /** A change announced as staged on the current version: installed without a read when its commit is announced. */
  private volatile StagedChanges.StagedMap staged;
  private final Thread follower;
  /** This router's row in {@code shardwise.router}, or null without a lease. */
  private final ControlDatabase.RouterLease lease;
  private final long leaseNanos;
  private final long heartbeatNanos;

  /** When the last successful heartbeat started (System.nanoTime); the lease runs from there. */
  private volatile long confirmedAt;
  /** The newest version every listener has installed: what the heartbeat acknowledges. */
  private volatile long acknowledged;
  /** Owned by the follower thread: the version the last heartbeat wrote, and when the next one is due. */
  private long reported = -1;
  private long nextHeartbeat;

  private volatile ShardMap current;
  /**
   * Held by the one publisher at a time, and by {@link #refresh(long)} while it waits for
   * {@code published}: a {@code java.util.concurrent} lock, so that a virtual thread waiting here
   * does not pin its carrier (a monitor does on JDK 21 to 23).
   */
  private final ReentrantLock publishing = new ReentrantLock();
  /** Signalled after each publication, for {@link #refresh(long)}. */
  private final Condition published = publishing.newCondition();
  private volatile boolean closed;
  /** Owned by the follower thread; other threads only abort it, in {@link #close()}. */
  private volatile Connection connection;

  private ControlDatabaseShardMapSource(Builder builder) {
    this.control = builder.control;
    this.name = "shardwise-shard-map-" + SEQUENCE.incrementAndGet();
    this.checkIntervalNanos = builder.versionCheckInterval.toNanos();
    this.maxBackoffNanos = builder.maxReconnectBackoff.toNanos();
    this.connectionProperties = new Properties();
    // a query on a silently dead connection fails instead of hanging; getNotifications sets its own timeout
    long socketTimeoutSeconds = Math.max(10, TimeUnit.NANOSECONDS.toSeconds(checkIntervalNanos) * 3);
    connectionProperties.setProperty("socketTimeout", Long.toString(socketTimeoutSeconds));
    connectionProperties.setProperty("tcpKeepAlive", "true");
    if (builder.lease.isZero()) {
      this.lease = null;
      this.leaseNanos = 0;
      this.heartbeatNanos = 0;
    } else {
      this.lease = new ControlDatabase.RouterLease(routerId(name), host(), ProcessHandle.current().pid(),
          builder.unitName, 0, builder.lease.toMillis(), 0);
      this.leaseNanos = builder.lease.toNanos();
      this.heartbeatNanos = Math.max(1, leaseNanos / 3);
    }

    Connection c;
    try {
      c = connectAndListen();
    } catch (SQLException e) {
      throw new ControlDatabaseException("Could not start following the shard map in control database "
          + control.displayUrl() + ": " + e.getMessage() + ". Check the URL, that the server runs, and the user "
          + "and password.", e);
    }
    try {
      long started = System.nanoTime();
      if (lease != null) {
        // registered before the map is read: a move that changes the map after this read waits for this router
        ControlDatabase.heartbeat(c, lease, 0);
      }
      ShardMap map = ControlDatabase.readMap(c);
      if (map == null) {
        throw control.notInitialized();
      }
      current = map;
      acknowledged = map.version();
      if (lease != null) {
        ControlDatabase.heartbeat(c, lease, map.version());
        reported = map.version();
        confirmedAt = started;
        nextHeartbeat = started + heartbeatNanos;
      }
    } catch (SQLException | RuntimeException e) {
      closeQuietly(c);
      if (e instanceof SQLException sql) {
        throw new ControlDatabaseException("Could not load the shard map from control database "
            + control.displayUrl() + ": " + sql.getMessage() + ". Was createSchema() called?", sql);
      }
      throw (RuntimeException) e;
    }
    connection = c;
    follower = new Thread(this::follow, name);
    follower.setDaemon(true);
    follower.start();
  }

  /** Starts configuring a source that follows the map in {@code control}. */
  public static Builder builder(ControlDatabase control) {
    return new Builder(control);
  }

  @Override
  public ShardMap current() {
    return current;
  }

  /**
   * Throws {@link ShardMapStaleException} if this router has a lease and has not confirmed its map
   * with the control database within it; returns at once otherwise (one clock read).
   */
  public void checkFresh() {
    if (lease != null) {
      long since = System.nanoTime() - confirmedAt;
      if (since >= leaseNanos) {
        throw stale(since);
      }
    }
  }

  /** Whether this source has a router lease ({@link Builder#routerLease(Duration, String)}). */
  public boolean leased() {
    return lease != null;
  }

  /** This router's id in {@code shardwise.router}, or null without a lease. */
  public String routerId() {
    return lease == null ? null : lease.id();
  }

  private ShardMapStaleException stale(long sinceNanos) {
    long sinceMs = TimeUnit.NANOSECONDS.toMillis(sinceNanos);
    long leaseMs = lease.leaseMs();
    return new ShardMapStaleException("Router " + lease.id() + " of persistence unit '" + lease.unit()
        + "' could not reach control database " + control.displayUrl() + " for " + sinceMs + " ms, longer than its"
        + " lease (shardwise.control.router_lease_ms = " + leaseMs + "), so it cannot vouch for shard map version "
        + current.version() + ": an online move may have changed it, and moves no longer wait for this router."
        + " Routing by key and scatter-gather are refused until it reaches the control database again, which it"
        + " keeps trying; retry the unit of work then. Check the network and the control database; to keep"
        + " routing on the last map instead, set shardwise.control.router_lease_ms = 0 (then moves wait"
        + " shardwise.reshard.fence_grace_ms instead of acknowledgements).", current.version(), sinceMs, leaseMs);
  }

  @Override
  public void addListener(Consumer<ShardMap> listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Calls {@code listener} with the map the next version will be when a write switch has staged its
   * change on the current version and announced it (before its freeze): for work that should be
   * done before the change commits, such as opening connections to the shard that gains buckets.
   * Routing is unchanged until the commit is announced; then that map is published to the
   * {@linkplain #addListener listeners} without a read of the control database.
   */
  @Override
  public void addStagedListener(Consumer<ShardMap> listener) {
    stagedListeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Loads the stored map on a connection of its own (not the follower's, which may be stuck) and
   * publishes it if it is newer than {@link #current()}.
   *
   * @throws ControlDatabaseException if the control database cannot be reached
   */
  @Override
  public ShardMap refresh() {
    try (Connection c = control.connect(name + "-refresh", connectionProperties)) {
      ShardMap map = ControlDatabase.readMap(c);
      if (map != null) {
        publishIfNewer(map);
      }
      return current;
    } catch (SQLException e) {
      throw new ControlDatabaseException("Could not refresh the shard map from control database "
          + control.displayUrl() + ": " + e.getMessage() + ". Routing continues with shard map version "
          + current.version() + ".", e);
    }
  }

  /**
   * Returns at once when the current map is at version {@code atLeast} or newer; else waits up to
   * 50 ms for the follower (when it is connected) to publish it, and then loads the map itself with
   * {@link #refresh()} if it has not come.
   */
  @Override
  public ShardMap refresh(long atLeast) {
    if (atLeast >= 0 && current.version() < atLeast && connection != null && !closed) {
      long deadline = System.nanoTime() + FOLLOWER_WAIT_NANOS;
      try {
        if (publishing.tryLock(FOLLOWER_WAIT_NANOS, TimeUnit.NANOSECONDS)) {
          try {
            long left;
            while (current.version() < atLeast && (left = deadline - System.nanoTime()) > 0) {
              published.awaitNanos(left);
            }
          } finally {
            publishing.unlock();
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    ShardMap map = current;
    return atLeast >= 0 && map.version() >= atLeast ? map : refresh();
  }

  /**
   * The name of this source's thread, also the {@code application_name} of its session on the
   * control database (look for it in {@code pg_stat_activity}).
   */
  public String name() {
    return name;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    Connection c = connection;
    if (c != null) {
      try {
        c.abort(Runnable::run); // wakes the follower from its blocking read
      } catch (SQLException e) {
        LOG.log(System.Logger.Level.DEBUG, "aborting the listening connection of " + name + " failed", e);
      }
    }
    LockSupport.unpark(follower);
    try {
      follower.join(JOIN_TIMEOUT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (follower.isAlive()) {
      LOG.log(System.Logger.Level.WARNING, "Shard map follower " + name + " did not stop within " + JOIN_TIMEOUT
          + "; it is a daemon thread and will stop when its current call to " + control.displayUrl() + " returns");
    }
    if (lease != null) {
      try (Connection unregister = control.connect(name + "-close", connectionProperties)) {
        ControlDatabase.unregister(unregister, lease.id());
      } catch (SQLException | RuntimeException e) {
        LOG.log(System.Logger.Level.INFO, "Router " + lease.id() + " could not remove its lease from control database "
            + control.displayUrl() + " (" + e.getMessage() + "); moves wait for it until its lease of "
            + lease.leaseMs() + " ms runs out");
      }
    }
  }

  @Override
  public String toString() {
    return "ControlDatabaseShardMapSource{" + name + ", " + control.displayUrl() + ", version " + current.version()
        + (closed ? ", closed" : "") + "}";
  }

  // ---------------------------------------------------------------------------------------------
  // The follower thread
  // ---------------------------------------------------------------------------------------------

  private void follow() {
    long nextCheck = System.nanoTime() + checkIntervalNanos;
    long backoff = INITIAL_BACKOFF_NANOS;
    try {
      while (!closed) {
        Connection c = connection;
        try {
          if (c == null) {
            c = connectAndListen();
            connection = c;
            if (closed) {
              break; // close() may have missed this connection; the finally block closes it
            }
            LOG.log(System.Logger.Level.INFO, name + " is listening to " + control.displayUrl() + " again");
            backoff = INITIAL_BACKOFF_NANOS;
            reloadIfNewer(c, ControlDatabase.readVersion(c)); // a change missed while disconnected
            nextCheck = System.nanoTime() + checkIntervalNanos;
            nextHeartbeat = System.nanoTime(); // renew the lease now
          }
          heartbeatIfDue(c);
          long wakeAt = lease != null && nextHeartbeat - nextCheck < 0 ? nextHeartbeat : nextCheck;
          long waitMillis = Math.max(1, TimeUnit.NANOSECONDS.toMillis(wakeAt - System.nanoTime()));
          PGNotification[] notifications =
              c.unwrap(PGConnection.class).getNotifications((int) Math.min(waitMillis, Integer.MAX_VALUE));
          if (closed) {
            break;
          }
          onNotifications(c, notifications);
          if (System.nanoTime() - nextCheck >= 0) {
            reloadIfNewer(c, ControlDatabase.readVersion(c));
            nextCheck = System.nanoTime() + checkIntervalNanos;
          }
          heartbeatIfDue(c);
        } catch (SQLException | RuntimeException e) {
          if (closed) {
            break;
          }
          LOG.log(System.Logger.Level.WARNING, name + " could not follow the shard map in control database "
              + control.displayUrl() + " (" + e.getMessage() + "); reconnecting in "
              + TimeUnit.NANOSECONDS.toMillis(backoff) + " ms. Routing continues with shard map version "
              + current.version() + ".");
          closeQuietly(c);
          connection = null;
          pause(backoff);
          backoff = Math.min(backoff * 2, maxBackoffNanos);
        }
      }
    } finally {
      closeQuietly(connection);
      connection = null;
    }
  }

  /**
   * Writes this router's row when the acknowledged version changed or the heartbeat is due; the
   * heartbeat first reads the stored version (and loads a newer map), so a renewed lease always
   * comes with a confirmed map.
   */
  private void heartbeatIfDue(Connection c) throws SQLException {
    if (lease == null) {
      return;
    }
    long now = System.nanoTime();
    if (acknowledged == reported && now - nextHeartbeat < 0) {
      return;
    }
    reloadIfNewer(c, ControlDatabase.readVersion(c));
    long version = acknowledged;
    ControlDatabase.heartbeat(c, lease, version);
    reported = version;
    confirmedAt = now;
    nextHeartbeat = now + heartbeatNanos;
  }

  private static String routerId(String name) {
    return host() + "/pid-" + ProcessHandle.current().pid() + "/" + name + "-"
        + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong() >>> 16);
  }

  private static String host() {
    try {
      return java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException | SecurityException e) {
      return "unknown-host";
    }
  }

  private Connection connectAndListen() throws SQLException {
    Connection c = control.connect(name, connectionProperties);
    try (Statement s = c.createStatement()) {
      s.execute("LISTEN " + ControlDatabase.CHANNEL);
    } catch (SQLException e) {
      closeQuietly(c);
      throw e;
    }
    return c;
  }

  private void reloadIfNewer(Connection c, long version) throws SQLException {
    if (version <= current.version()) {
      return;
    }
    ShardMap map = ControlDatabase.readMap(c);
    if (map != null) {
      publishIfNewer(map);
    }
  }

  /** Installs a newer map and tells the listeners; one publisher at a time, so versions only go up. */
  private void publishIfNewer(ShardMap map) {
    publishing.lock();
    try {
      publishLocked(map);
    } finally {
      publishing.unlock();
    }
  }

  private void publishLocked(ShardMap map) {
    if (map.version() <= current.version()) {
      return;
    }
    current = map;
    StagedChanges.StagedMap kept = staged;
    if (kept != null && kept.map().version() <= map.version()) {
      staged = null;   // committed, or superseded by another change
    }
    for (Consumer<ShardMap> listener : listeners) {
      try {
        listener.accept(map);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "A shard map listener of " + name + " failed on version "
            + map.version() + "; the other listeners still run", e);
      }
    }
    acknowledged = map.version(); // every listener (the router) has installed it
    published.signalAll();
  }

  /**
   * Handles a batch of notifications in order: a staged change is kept (and handed to the staged
   * listeners) when it was staged on the current version; the commit of the kept change publishes
   * its map at once; any other new version is loaded from the control database. Payloads that are
   * neither are ignored.
   */
  private void onNotifications(Connection c, PGNotification[] notifications) throws SQLException {
    if (notifications == null) {
      return;
    }
    long newest = -1;
    for (PGNotification n : notifications) {
      String payload = n.getParameter().trim();
      if (payload.startsWith(StagedChanges.STAGED_PREFIX)) {
        stage(payload);
        continue;
      }
      int space = payload.indexOf(' ');
      long version;
      try {
        version = Long.parseLong(space < 0 ? payload : payload.substring(0, space));
      } catch (NumberFormatException e) {
        LOG.log(System.Logger.Level.DEBUG, "ignoring a notification on " + ControlDatabase.CHANNEL
            + " whose payload is not a version: '" + payload + "'");
        continue;
      }
      StagedChanges.StagedMap ready = staged;
      if (space > 0 && ready != null && ready.token().equals(payload.substring(space + 1))
          && ready.map().version() == version && current.version() == version - 1) {
        publishIfNewer(ready.map());   // the staged change committed on the map it was computed from
      } else {
        newest = Math.max(newest, version);
      }
    }
    reloadIfNewer(c, newest);
  }

  private void stage(String payload) {
    StagedChanges.StagedMap next = StagedChanges.parseStaged(payload, current);
    if (next == null) {
      return;   // staged on another version than this router's: its commit is loaded like any change
    }
    staged = next;
    for (Consumer<ShardMap> listener : stagedListeners) {
      try {
        listener.accept(next.map());
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "A staged shard map listener of " + name + " failed on version "
            + next.map().version() + "; the other listeners still run", e);
      }
    }
  }

  /** Waits up to {@code nanos}, returning early when the source is closed. */
  private void pause(long nanos) {
    long deadline = System.nanoTime() + nanos;
    long left;
    while (!closed && (left = deadline - System.nanoTime()) > 0) {
      LockSupport.parkNanos(this, left);
    }
  }

  private static void closeQuietly(Connection c) {
    if (c != null) {
      try {
        c.close();
      } catch (SQLException | RuntimeException e) {
        LOG.log(System.Logger.Level.DEBUG, "closing a control database connection failed", e);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Configuration
  // ---------------------------------------------------------------------------------------------

  /** Configures a {@link ControlDatabaseShardMapSource}; {@link #start()} validates and starts it. */
  public static final class Builder {
    private final ControlDatabase control;
    private Duration versionCheckInterval = Duration.ofSeconds(1);
    private Duration maxReconnectBackoff = Duration.ofSeconds(5);
    private Duration lease = Duration.ZERO;
    private String unitName;

    private Builder(ControlDatabase control) {
      this.control = Objects.requireNonNull(control, "a shard map source needs a ControlDatabase");
    }

    /**
     * How often the stored version is compared with the current one, in case a notification was
     * lost (default 1 s). Changes normally arrive by notification, much sooner.
     */
    public Builder versionCheckInterval(Duration interval) {
      if (interval == null || interval.toMillis() < 1) {
        throw new IllegalArgumentException("versionCheckInterval for " + control.displayUrl()
            + " must be at least 1 ms, was " + interval);
      }
      this.versionCheckInterval = interval;
      return this;
    }

    /**
     * Registers the router in the control database with a lease (zero: no lease, the default), so
     * that online moves wait for its acknowledgement of each map change instead of a fixed grace
     * period, and {@link #checkFresh()} refuses once it could not confirm its map for a whole
     * lease. The lease must be at least three version check intervals.
     *
     * @param unitName the persistence unit routed, shown in {@code shardwise.router}
     */
    public Builder routerLease(Duration lease, String unitName) {
      if (lease == null || lease.isNegative()) {
        throw new IllegalArgumentException("routerLease for " + control.displayUrl() + " must be zero (off) or"
            + " positive, was " + lease);
      }
      this.lease = lease;
      this.unitName = unitName == null ? "(unnamed)" : unitName;
      return this;
    }

    /** The longest pause between attempts to reconnect to the control database (default 5 s). */
    public Builder maxReconnectBackoff(Duration backoff) {
      if (backoff == null || backoff.toMillis() < 50) {
        throw new IllegalArgumentException("maxReconnectBackoff for " + control.displayUrl()
            + " must be at least 50 ms, was " + backoff);
      }
      this.maxReconnectBackoff = backoff;
      return this;
    }

    /**
     * Connects, loads the map and starts following it.
     *
     * @throws ControlDatabaseException if the control database cannot be reached
     * @throws IllegalStateException if it holds no shard map yet
     */
    public ControlDatabaseShardMapSource start() {
      if (!lease.isZero() && lease.compareTo(versionCheckInterval.multipliedBy(3)) < 0) {
        throw new IllegalArgumentException("The router lease (" + lease.toMillis() + " ms) for "
            + control.displayUrl() + " must be at least three version check intervals ("
            + versionCheckInterval.toMillis() + " ms each), so that a heartbeat can fail once without the"
            + " router refusing work");
      }
      return new ControlDatabaseShardMapSource(this);
    }
  }
}
