package io.shardwise.hibernate.routing.internal;

import io.shardwise.hibernate.ShardKeyException;
import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.routing.BucketStrategy;
import io.shardwise.hibernate.routing.ControlDatabaseShardMapSource;
import io.shardwise.hibernate.routing.PgHash;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardMapSource;
import io.shardwise.hibernate.routing.ShardingStrategy;
import java.util.function.Function;

/**
 * Key → shard for one session factory: the shard map and the strategy built on it, held as one
 * immutable pair behind one volatile field, so that a routing decision never sees the map of one
 * version with the strategy of another. A new map from the {@link ShardMapSource} swaps the pair
 * whole; a map the strategy cannot route is refused and the old pair stays.
 *
 * <p>{@link #shardFor(long)} is the fast path for integral keys: one volatile read and the
 * strategy's arithmetic, no boxing, no allocation.
 *
 * <p>With a router lease ({@code shardwise.control.router_lease_ms}), every routing decision and
 * {@link #checkedMap()} first check it (one clock read) and throw
 * {@link io.shardwise.hibernate.routing.ShardMapStaleException} when the map could not be confirmed
 * within the lease; without one, nothing is checked.
 */
public final class Router {
  private static final System.Logger LOG = System.getLogger("io.shardwise");

  /** A map and the strategy built from it: one volatile read gives a consistent pair. */
  private record Routing(ShardMap map, ShardingStrategy strategy) {}

  private final Function<ShardMap, ShardingStrategy> strategies;
  private final String unitName;
  private final ShardMapSource source;
  /** The source when it has a router lease, checked before every routing decision; else null (no cost). */
  private final ControlDatabaseShardMapSource leased;
  private volatile Routing routing;
  /** The pair before the current one: tells a write that raced a move from a misrouted one. */
  private volatile Routing previous;
  /** The pair built in advance for a map a move has staged; installed as it is when that map is published. */
  private volatile Routing staged;

  private Router(Function<ShardMap, ShardingStrategy> strategies, String unitName, ShardMapSource source) {
    this.strategies = strategies;
    this.unitName = unitName;
    this.source = source;
    this.leased = source instanceof ControlDatabaseShardMapSource c && c.leased() ? c : null;
  }

  /**
   * A router that follows {@code source}. It registers its listener <em>before</em> it reads the
   * source's current map, so that a map published in between is delivered to the listener instead
   * of being lost; a snapshot older than the one already installed is ignored, so the two paths
   * cannot race each other back to an older version.
   *
   * @param strategies builds the strategy for a map; an {@link IllegalArgumentException} means the
   *     map cannot be routed (refused at start-up, logged and skipped later)
   * @throws ShardingConfigurationException if the current map cannot be routed
   */
  public static Router following(ShardMapSource source, Function<ShardMap, ShardingStrategy> strategies,
      String unitName) {
    Router router = new Router(strategies, unitName, source);
    source.addListener(router::onNewMap);
    source.addStagedListener(router::onStagedMap);
    router.install(source.current());
    return router;
  }

  /**
   * {@link #shardFor(long)} that also hands the key's bucket to {@code counter}, from the same
   * hash and the same map: one hash per routed key, no boxing, no allocation.
   */
  public String shardFor(long key, BucketCounter counter) {
    checkFresh();
    ShardingStrategy strategy = routing.strategy();
    try {
      if (strategy instanceof BucketStrategy buckets) {
        int bucket = buckets.bucketOf(PgHash.hashLong(key));
        counter.count(key, bucket);
        return buckets.ownerOf(bucket);
      }
      String owner = strategy.shardFor(key);
      counter.count(key);
      return owner;
    } catch (IllegalArgumentException e) {
      throw new ShardKeyException(e.getMessage(), e);
    }
  }

  /**
   * {@link #shardFor(Object)} that also hands the key's bucket to {@code counter}, from the same
   * hash and the same map: the key is hashed once for routing and counting.
   */
  public String shardFor(Object key, BucketCounter counter) {
    if (key == null) {
      return shardFor(null);
    }
    checkFresh();
    ShardingStrategy strategy = routing.strategy();
    try {
      if (strategy instanceof BucketStrategy buckets) {
        int bucket = buckets.bucketOfKey(key);
        counter.count(key, bucket);
        return buckets.ownerOf(bucket);
      }
      String owner = strategy.shardFor(key);
      counter.count(key);
      return owner;
    } catch (IllegalArgumentException e) {
      throw new ShardKeyException(e.getMessage(), e);
    }
  }

  /** The shard that owns {@code key}. */
  public String shardFor(Object key) {
    if (key == null) {
      throw new ShardKeyException("A shard key is null: every sharded entity needs its @ShardKey value set,"
          + " and routing by key needs a non-null key");
    }
    checkFresh();
    try {
      return routing.strategy().shardFor(key);
    } catch (IllegalArgumentException e) {
      throw new ShardKeyException(e.getMessage(), e);
    }
  }

  /** The shard that owns an integral key, without boxing it. */
  public String shardFor(long key) {
    checkFresh();
    try {
      return routing.strategy().shardFor(key);
    } catch (IllegalArgumentException e) {
      throw new ShardKeyException(e.getMessage(), e);
    }
  }

  /** The shard that serves read-only sessions of {@code key}: its owner, or a move's target once its reads are switched. */
  public String readShardFor(Object key) {
    if (key == null) {
      throw new ShardKeyException("A shard key is null: routing by key needs a non-null key");
    }
    checkFresh();
    try {
      return routing.strategy().readShardFor(key);
    } catch (IllegalArgumentException e) {
      throw new ShardKeyException(e.getMessage(), e);
    }
  }

  /** {@link #readShardFor(Object)} for an integral key, without boxing. */
  public String readShardFor(long key) {
    checkFresh();
    try {
      return routing.strategy().readShardFor(key);
    } catch (IllegalArgumentException e) {
      throw new ShardKeyException(e.getMessage(), e);
    }
  }

  /**
   * {@link #readShardFor(long)} for a key whose owner was just looked up: that owner, without
   * hashing the key again, unless the current map has switched the reads of some bucket to a move's target.
   */
  public String readShardFor(long key, String owner) {
    Routing current = routing;
    if (!current.map().hasSwitchedReads()) {
      return owner;
    }
    try {
      return current.strategy().readShardFor(key);
    } catch (IllegalArgumentException e) {
      throw new ShardKeyException(e.getMessage(), e);
    }
  }

  /**
   * Whether {@code key} belonged to {@code shardId} under the map before the current one: a write
   * whose session was opened on the old owner just before a move switched the key's bucket.
   */
  public boolean ownedBeforeLastChange(Object key, String shardId) {
    Routing before = previous;
    try {
      return before != null && shardId.equals(before.strategy().shardFor(key));
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * Loads the newest map from the source now (a shard refused a write because its bucket moved, so
   * this router missed a change) and returns the map routing uses afterwards.
   */
  public ShardMap refresh() {
    install(source.refresh());
    return routing.map();
  }

  /**
   * {@link #refresh()} unless this router already routes with map version {@code atLeast} or newer
   * (the notification of the change arrived before the refused write came back); otherwise the
   * source may first wait a moment for that notification before it loads the map itself.
   */
  public ShardMap refresh(long atLeast) {
    ShardMap current = routing.map();
    if (atLeast >= 0 && current.version() >= atLeast) {
      return current;
    }
    install(source.refresh(atLeast));
    return routing.map();
  }

  /** The shard map routing uses now. */
  public ShardMap map() {
    return routing.map();
  }

  /** {@link #map()} for work whose answer depends on it (scatter-gather): checks the router lease first. */
  public ShardMap checkedMap() {
    checkFresh();
    return routing.map();
  }

  /** Throws if the router lease ran out; nothing without a lease. */
  public void checkFresh() {
    if (leased != null) {
      leased.checkFresh();
    }
  }

  private synchronized void install(ShardMap map) {
    Routing current = routing;
    if (current != null && map.version() <= current.map().version()) {
      return;
    }
    try {
      Routing ready = staged;
      routing = ready != null && ready.map() == map ? ready : new Routing(map, strategies.apply(map));
      previous = current;
      if (ready != null && ready.map().version() <= map.version()) {
        staged = null;
      }
    } catch (IllegalArgumentException e) {
      throw new ShardingConfigurationException("Shardwise configuration of persistence unit '" + unitName
          + "': " + e.getMessage(), e);
    }
  }

  /** The map a move's write switch staged: its strategy is built now, so that the switch only swaps the pair. */
  private void onStagedMap(ShardMap map) {
    try {
      staged = new Routing(map, strategies.apply(map));
    } catch (IllegalArgumentException e) {
      LOG.log(System.Logger.Level.WARNING, "Persistence unit '" + unitName + "': staged shard map version "
          + map.version() + " cannot be routed (" + e.getMessage() + "); it is checked again if it commits");
    }
  }

  /** The version of the map a move has staged for this router, or -1: for diagnostics and tests. */
  public long stagedVersion() {
    Routing ready = staged;
    return ready == null || ready.map().version() <= routing.map().version() ? -1 : ready.map().version();
  }

  private void onNewMap(ShardMap map) {
    try {
      install(map);
      LOG.log(System.Logger.Level.INFO, "Persistence unit ''{0}'' routes with shard map version {1}", unitName,
          routing.map().version());
    } catch (RuntimeException e) {
      Routing kept = routing;
      LOG.log(System.Logger.Level.ERROR, "Persistence unit '" + unitName + "' keeps shard map version "
          + (kept == null ? "(none yet)" : kept.map().version()) + ": version " + map.version()
          + " cannot be routed: " + e.getMessage());
    }
  }
}
