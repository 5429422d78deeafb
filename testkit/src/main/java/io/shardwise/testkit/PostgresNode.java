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

  /** Fast shutdown ({@code pg_ctl stop -m fast}): open sessions are disconnected, nothing is lost. */
  void stop();

  /** SIGKILL to the server and every backend process, as a machine crash would. */
  void kill();

  /** Starts a stopped or killed instance on the same port and data directory; waits until it serves. */
  void start();

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
