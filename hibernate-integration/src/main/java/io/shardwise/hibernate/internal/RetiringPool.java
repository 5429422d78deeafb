package io.shardwise.hibernate.internal;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
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
 * thread sets {@code retired}, then (later) reads the count and the active connections. Either
 * the borrower sees the flag and lends nothing, or the retiring thread sees the borrower, counted
 * in until its connection is marked active by HikariCP, and waits for that connection to return.
 */
public final class RetiringPool {
  private final String url;
  private final HikariDataSource dataSource;
  private final io.shardwise.hibernate.internal.jdbc.NodeBreaker breaker;
  private final io.shardwise.hibernate.internal.jdbc.StatementTimer statements;
  private final AtomicInteger borrowing = new AtomicInteger();
  private volatile boolean retired;

  public RetiringPool(String url, HikariDataSource dataSource) {
    this(url, dataSource, null, null);
  }

  /**
   * @param breaker the circuit breaker in front of the pool's server, or null
   * @param statements times the statements of the pool's sessions; null when nothing is recorded
   */
  public RetiringPool(String url, HikariDataSource dataSource, io.shardwise.hibernate.internal.jdbc.NodeBreaker breaker,
      io.shardwise.hibernate.internal.jdbc.StatementTimer statements) {
    this.url = url;
    this.dataSource = dataSource;
    this.breaker = breaker;
    this.statements = statements;
  }

  /** The timer of the statements sent through this pool's connections, or null. */
  public io.shardwise.hibernate.internal.jdbc.StatementTimer statements() {
    return statements;
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
   * Lends nothing new from now on; its connections close with the pool once it is drained. They
   * are not evicted now: a borrower already waiting inside the pool is served by a connection that
   * comes back, and with {@code shardwise.pool.min_idle = 0} (the default) HikariCP would not open a
   * replacement for an evicted one, leaving that borrower to time out.
   */
  void retire() {
    retired = true;
  }

  /** Retired, with no borrow under way and no connection out: it may be closed without harm. */
  boolean drained() {
    if (!retired || borrowing.get() > 0) {
      return false;
    }
    HikariPoolMXBean stats = dataSource.getHikariPoolMXBean();
    return stats == null || stats.getActiveConnections() == 0;
  }
}
