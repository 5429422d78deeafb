package io.shardwise.hibernate.internal;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.shardwise.hibernate.routing.ShardMap;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A HikariCP pool that can be taken out of use while other threads still hold its connections.
 * HikariCP's own {@code close()} aborts connections that are out, so a pool replaced under load
 * would kill its borrowers' transactions. A retired pool lends nothing more; it is closed (by
 * {@link ShardPools}) once it is drained: no borrow under way and no connection out.
 *
 * <p>Why that is safe: a borrower counts itself in, then reads {@code retired}; the retiring
 * thread sets {@code retired}, then (later) reads the counts and the active connections. Either
 * the borrower sees the flag and lends nothing, or the retiring thread sees the borrower, counted
 * in until its connection is marked active by HikariCP, and waits for that connection to return.
 *
 * <p>Two counts do that, so that a Hibernate session's checkout pays for one atomic counter, not
 * two. A session's unit of work is counted in {@link #enterSession} from before its borrow until
 * its connection is back ({@link #leaveSession}): that count is the shard's bulkhead and covers
 * the borrow as well, so {@link #borrowCounted()} counts nothing more. Other borrowers (the read
 * path's fallback, schema and cross-shard work) use {@link #borrow()}, counted for the borrow only.
 */
public final class RetiringPool {
  private final String url;
  private final HikariDataSource dataSource;
  private final io.shardwise.hibernate.internal.jdbc.NodeBreaker breaker;
  private final io.shardwise.hibernate.internal.jdbc.StatementTimer statements;
  private final AtomicInteger borrowing = new AtomicInteger();
  /** Sessions' units of work holding or waiting for a connection of this pool (the bulkhead's count). */
  private final AtomicInteger sessions = new AtomicInteger();
  private volatile boolean retired;
  /** The socket timeout of this pool's connections, for failure messages (0 when not given). */
  private final long socketTimeoutMs;
  /**
   * The last shard map this pool was found current in (its shard present, not OFFLINE, this URL):
   * a checkout under the same map skips those checks. A plain field: a stale read only sends a
   * checkout through the checks again.
   */
  private ShardMap checkedAgainst;

  public RetiringPool(String url, HikariDataSource dataSource) {
    this(url, dataSource, null, null);
  }

  /**
   * @param breaker the circuit breaker in front of the pool's server, or null
   * @param statements times the statements of the pool's sessions; null when nothing is recorded
   */
  public RetiringPool(String url, HikariDataSource dataSource, io.shardwise.hibernate.internal.jdbc.NodeBreaker breaker,
      io.shardwise.hibernate.internal.jdbc.StatementTimer statements) {
    this(url, dataSource, breaker, statements, 0);
  }

  /** @param socketTimeoutMs the socket timeout of the pool's connections, for failure messages */
  RetiringPool(String url, HikariDataSource dataSource, io.shardwise.hibernate.internal.jdbc.NodeBreaker breaker,
      io.shardwise.hibernate.internal.jdbc.StatementTimer statements, long socketTimeoutMs) {
    this.url = url;
    this.dataSource = dataSource;
    this.breaker = breaker;
    this.statements = statements;
    this.socketTimeoutMs = socketTimeoutMs;
  }

  /** The timer of the statements sent through this pool's connections, or null. */
  public io.shardwise.hibernate.internal.jdbc.StatementTimer statements() {
    return statements;
  }

  long socketTimeoutMs() {
    return socketTimeoutMs;
  }

  /** Whether this pool was found current in {@code map} already (the map of an earlier checkout). */
  boolean currentIn(ShardMap map) {
    return checkedAgainst == map;
  }

  void checkedAgainst(ShardMap map) {
    checkedAgainst = map;
  }

  /** The circuit breaker in front of this pool's server, or null. */
  public io.shardwise.hibernate.internal.jdbc.NodeBreaker breaker() {
    return breaker;
  }

  public String url() {
    return url;
  }

  public HikariDataSource dataSource() {
    return dataSource;
  }

  /** A connection, or null when the pool was retired before this borrow began: ask its successor. */
  public Connection borrow() throws SQLException {
    borrowing.incrementAndGet();
    try {
      return retired ? null : dataSource.getConnection();
    } finally {
      borrowing.decrementAndGet();
    }
  }

  /**
   * Counts a session's unit of work in, unless {@code max} are in already (then nothing is counted
   * and the answer is false): the shard's bulkhead. Pair with {@link #leaveSession()} once the
   * connection is back, or at once when no connection was lent.
   */
  boolean enterSession(int max) {
    if (sessions.incrementAndGet() > max) {
      sessions.decrementAndGet();
      return false;
    }
    return true;
  }

  void leaveSession() {
    sessions.decrementAndGet();
  }

  /**
   * {@link #borrow()} for a unit of work counted in by {@link #enterSession}: that count covers
   * the borrow, so nothing more is counted here.
   */
  Connection borrowCounted() throws SQLException {
    return retired ? null : dataSource.getConnection();
  }

  /**
   * Lends nothing new from now on; its connections close with the pool once it is drained. They
   * are not evicted now: a borrower already waiting inside the pool is served by a connection that
   * comes back, and with {@code shardwise.pool.min_idle = 0} (the default) HikariCP would not open a
   * replacement for an evicted one, leaving that borrower to time out.
   */
  void retire() {
    retired = true;
  }

  /** Retired, with no borrow under way, no session's unit of work in and no connection out: it may be closed without harm. */
  boolean drained() {
    if (!retired || borrowing.get() > 0 || sessions.get() > 0) {
      return false;
    }
    HikariPoolMXBean stats = dataSource.getHikariPoolMXBean();
    return stats == null || stats.getActiveConnections() == 0;
  }
}
