package io.shardwise.hibernate.scatter.internal;

import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.metrics.ShardwiseMetrics;
import io.shardwise.hibernate.metrics.ShardwiseObservations;
import io.shardwise.hibernate.routing.ShardMap;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.hibernate.Session;
import org.hibernate.SessionFactory;

/**
 * What scatter queries need from the rest of Shardwise, and nothing more.
 *
 * @param placement for an entity class: {@link ScatterPlanner#REFERENCE}, its co-location group, or
 *     null when it is not sharded (see {@link ScatterPlanner#plan(org.hibernate.engine.spi.SessionFactoryImplementor,
 *     String, Function)})
 * @param shardIds the shards of the current shard map
 * @param executor the fan-out pool, started on first use
 * @param reader runs one shard's part in a read-only session on that shard, in a transaction or not
 * @param connectionReader runs one shard's part on a read-only connection of that shard, with no
 *     Hibernate session (a part that returns scalars only)
 * @param settings {@code shardwise.scatter.*}: the row cap and the cursor's fetch size
 * @param map the current shard map: while buckets move, which shard serves the reads of each
 * @param entity what Shardwise knows of an entity class (its shard key), or null
 * @param metrics where each query's fan-out is recorded (the reader times each shard's part)
 * @param joined the session whose transaction the query joins (its pending changes are flushed and
 *     its shard's part runs on it, so the query sees the transaction's writes), or null
 * @param observations where each query is observed (the reader observes each shard's part); null when tracing is off
 * @param plans the session factory's plans by query text, each text planned once
 * @param opener runs one shard's part of a lazily merged top-N and hands its session back open
 * @param checkoutTimeoutMs how long a shard's primary pool may make a checkout wait: the calling
 *     thread runs a part itself only when that cannot outlast the deadline
 * @param serverStatementTimeoutMs for a shard, the longest server-side {@code statement_timeout} of
 *     the pools of its primary and replicas, 0 when one of them has none: a part whose deadline is
 *     further away needs no cancel timer of its own, the server ends its statement first
 */
public record ScatterContext(SessionFactory sessionFactory, Function<Class<?>, String> placement,
    Supplier<Set<String>> shardIds, Supplier<ScatterExecutor> executor, ShardReader reader,
    ConnectionReader connectionReader,
    ShardwiseConfig.Scatter settings, Supplier<ShardMap> map, Function<Class<?>, ShardedEntity> entity,
    ShardwiseMetrics metrics, ShardwiseObservations observations, Session joined, ScatterPlans plans,
    ShardOpener opener, java.util.function.ToLongFunction<String> checkoutTimeoutMs,
    java.util.function.ToLongFunction<String> serverStatementTimeoutMs) {

  /**
   * Runs {@code work} in a read-only session on one shard, in a transaction or statement by
   * statement, as a child of the query's observation {@code scatter} (null when tracing is off).
   */
  @FunctionalInterface
  public interface ShardReader {
    List<Object[]> read(String shardId, boolean inTransaction, ShardwiseObservations.Observed scatter,
        Function<Session, List<Object[]>> work);
  }

  /**
   * Runs {@code work} in a new read-only session on one shard, outside a transaction, as a child of
   * the query's observation {@code scatter} (null when tracing is off); when it returns, the session
   * stays open inside the {@link OpenPart}, whose {@link OpenPart#close} ends it; when it throws,
   * the session is closed here.
   */
  @FunctionalInterface
  public interface ShardOpener {
    OpenPart open(String shardId, ShardwiseObservations.Observed scatter,
        Function<Session, org.hibernate.ScrollableResults<Object[]>> work);
  }

  /**
   * Runs {@code work} on a read-only connection of one shard — the connection a read-only session
   * on it would get: a healthy replica, else the primary, retried once off a replica that failed
   * under it — with no Hibernate session, as a child of the query's observation {@code scatter}
   * (null when tracing is off); the connection goes back to its pool when {@code work} returns or
   * throws, and a failure leaves as the same Shardwise exception a session's part throws.
   */
  @FunctionalInterface
  public interface ConnectionReader {
    List<Object[]> read(String shardId, ShardwiseObservations.Observed scatter, PartOnConnection work);
  }

  /** One shard's part, read on a plain JDBC connection. */
  @FunctionalInterface
  public interface PartOnConnection {
    List<Object[]> read(java.sql.Connection connection) throws java.sql.SQLException;
  }
}
