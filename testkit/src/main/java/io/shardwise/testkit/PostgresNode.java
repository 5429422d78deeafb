package io.shardwise.testkit;

import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;

/**
 * One PostgreSQL server of a {@link PostgresTopology}: a shard's primary or one of its streaming
 * replicas. Besides connection details it offers the controls that fault and lag tests need.
 *
 * <p>The superuser is {@code postgres}, authentication is {@code trust} on loopback, and the
 * database is {@code postgres} unless another is named.
 */
public interface PostgresNode {

  enum Role { PRIMARY, REPLICA }

  /** A stable name such as {@code shard1-primary} or {@code shard1-replica2}. */
  String name();

  Role role();

  int shardIndex();

  String host();

  /** The TCP port, stable across {@link #restart()} (containers may remap it). */
  int port();

  /** A JDBC URL for the {@code postgres} database. */
  default String jdbcUrl() {
    return jdbcUrl("postgres");
  }

  String jdbcUrl(String database);

  String user();

  /** An unpooled {@link DataSource} for the {@code postgres} database. */
  DataSource dataSource();

  boolean isRunning();

  /**
   * Fast shutdown ({@code pg_ctl stop -m fast}): open sessions are disconnected, nothing is lost.
   * A frozen server is thawed first.
   */
  void stop();

  /** SIGKILL to the server and every backend process, as a machine crash would (frozen or not). */
  void kill();

  /**
   * Starts a stopped or killed instance on the same port and data directory, or thaws a frozen one;
   * waits until it serves.
   */
  void start();

  /**
   * Pauses the whole server, as a suspended VM or a network black hole would: SIGSTOP to the
   * postmaster and every process under it (containers: {@code docker pause}). The kernel still
   * accepts TCP connections on its port, but nothing ever answers, so clients hang until their own
   * timeouts (pgjdbc's {@code socketTimeout}, {@code connectTimeout}); a frozen replica neither
   * receives nor replays WAL. Returns once every process is stopped. {@link #isRunning()} stays true.
   *
   * @throws IllegalStateException when the server is not running
   */
  void freeze();

  /**
   * Lets a frozen server go on where it stopped (SIGCONT to the same processes); returns once none is
   * stopped. Does nothing to a server that is not frozen. {@link #stop()}, {@link #start()} and
   * closing the topology thaw first, so a frozen server never outlives its test.
   */
  void thaw();

  /** Whether the server is frozen by {@link #freeze()} (its postmaster is in the stopped state). */
  boolean isFrozen();

  default void restart() {
    stop();
    start();
  }

  // --- replication controls -------------------------------------------------------------

  /** Sets {@code recovery_min_apply_delay} on this replica; commits become visible that much later. */
  void setApplyDelay(Duration delay);

  void clearApplyDelay();

  /** {@code pg_wal_replay_pause()}: the replica keeps receiving WAL but stops applying it. */
  void pauseReplay();

  void resumeReplay();

  /** This replica's {@code pg_last_wal_replay_lsn()}. */
  Lsn replayLsn();

  /** This primary's {@code pg_current_wal_lsn()}. */
  Lsn currentLsn();

  /**
   * Waits until this replica has replayed at least {@code lsn}.
   *
   * @throws IllegalStateException when it has not within {@code timeout}
   */
  void awaitReplay(Lsn lsn, Duration timeout);

  /** The last {@code lines} lines of this server's log (empty for backends that keep none). */
  List<String> logTail(int lines);
}
