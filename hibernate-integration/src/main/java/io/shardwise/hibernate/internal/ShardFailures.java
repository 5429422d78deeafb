package io.shardwise.hibernate.internal;

import io.shardwise.hibernate.ShardSaturatedException;
import io.shardwise.hibernate.ShardUnavailableException;
import io.shardwise.hibernate.ShardwiseException;
import io.shardwise.hibernate.TransactionAbortedException;
import io.shardwise.hibernate.resharding.BucketMovedException;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardMapStaleException;
import io.shardwise.hibernate.transaction.CrossShardAbortedException;
import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.PersistenceException;
import java.sql.SQLException;
import java.util.function.LongFunction;
import org.hibernate.StaleStateException;

/**
 * The one translation of a failure on a shard into what the public entry points promise
 * ({@code ShardRoute}'s callback units of work, {@code ShardedSessions.atomically}, reference-table
 * writes, saga steps). Hibernate and the driver say what went wrong; the application is told, in
 * Shardwise's types, what it may do about it:
 *
 * <ul>
 *   <li>a write a move's fence refused (SQLSTATE {@code SW001}/{@code SW002} anywhere in the cause
 *       chain) → {@link BucketMovedException}, after the router has loaded the newest map;</li>
 *   <li>a Shardwise exception (a lost connection already is {@link ShardUnavailableException}, a
 *       full pool {@link ShardSaturatedException}) → itself, unwrapped from Hibernate's wrapper;</li>
 *   <li>a statement the shard cancelled at its {@code statement_timeout} (SQLSTATE {@code 57014}:
 *       the pool's {@code shardwise.<role>.statement_timeout_ms} or the unit's deadline) →
 *       {@link ShardUnavailableException}, as when the client's side of the deadline fires first:
 *       which of the two clocks notices is a race the application must not see;</li>
 *   <li>any other error the shard answered with (a Hibernate or Jakarta Persistence exception caused
 *       by the driver's, or a versioned row found changed) → {@link TransactionAbortedException},
 *       {@link CrossShardAbortedException} for a cross-shard transaction, retryable when another
 *       transaction was in the way ({@link #retryable});</li>
 *   <li>anything else — an exception of the application's own — → itself.</li>
 * </ul>
 */
public final class ShardFailures {
  /** Lock timeout, serialization failure, deadlock: another transaction was in the way. */
  private static final java.util.Set<String> CONFLICTS = java.util.Set.of("55P03", "40001", "40P01");
  /** query_canceled: the server's statement_timeout. */
  private static final String STATEMENT_TIMEOUT = "57014";

  private ShardFailures() {}

  /**
   * What a unit of work on {@code shardId} throws for {@code e}, which ended it (its transaction was
   * rolled back).
   *
   * @param refresh loads a shard map at least as new as the version given (the router's refresh)
   */
  public static RuntimeException ofUnitOfWork(RuntimeException e, String shardId, LongFunction<ShardMap> refresh) {
    RuntimeException known = fencedOrShardwise(e, shardId, refresh);
    if (known != null || !fromShard(e)) {
      return known != null ? known : e;
    }
    boolean retryable = retryable(e);
    return new TransactionAbortedException("Shard '" + shardId + "' rolled back the unit of work: " + what(e)
        + ". Nothing of it since its last commit was kept; " + advice(retryable), retryable, e);
  }

  /**
   * What a cross-shard transaction throws for {@code e}, which its work or its single participant's
   * commit threw after every shard it touched was rolled back (or never committed).
   *
   * @param shardId the shard whose session was in use when {@code e} was thrown, or null when unknown
   */
  public static RuntimeException ofCrossShard(RuntimeException e, String shardId, LongFunction<ShardMap> refresh) {
    RuntimeException known = fencedOrShardwise(e, shardId, refresh);
    if (known != null || !fromShard(e)) {
      return known != null ? known : e;
    }
    return aborted("(not started)", (shardId == null ? "a shard" : "shard '" + shardId + "'") + " answered with "
        + what(e), e, shardId, refresh);
  }

  /**
   * The abort of a cross-shard transaction {@code gid} for {@code why}: rolled back on every shard.
   * A fence's refusal is a {@link BucketMovedException} (the router refreshed, so that a retry
   * routes by the new owner); anything else a {@link CrossShardAbortedException}.
   */
  public static RuntimeException aborted(String gid, String why, RuntimeException cause, String shardId,
      LongFunction<ShardMap> refresh) {
    RuntimeException fenced = fenced(cause, shardId, refresh);
    if (fenced != null) {
      return fenced;
    }
    boolean retryable = retryable(cause);
    SQLException sql = sqlCause(cause);
    String state = sql == null || sql.getSQLState() == null || why.contains("SQLSTATE") ? ""
        : " (SQLSTATE " + sql.getSQLState() + ")";
    return new CrossShardAbortedException("Cross-shard transaction " + gid + " was rolled back on every shard: " + why
        + state + ". Nothing it wrote is visible anywhere; it is safe to retry" + (retryable ? "" : ", but the shard refused"
            + " the work itself and would refuse the same work again"), retryable, cause);
  }

  /**
   * Whether running the same work again may succeed: somewhere in the cause chain another
   * transaction was in the way (a lock timeout, a deadlock, a serialization failure, a versioned
   * row changed), a shard could not be reached, was too busy or too slow (a statement timeout), or
   * routing was out of date.
   */
  public static boolean retryable(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ShardUnavailableException || t instanceof ShardSaturatedException
          || t instanceof BucketMovedException || t instanceof ShardMapStaleException
          || t instanceof StaleStateException || t instanceof OptimisticLockException
          || t instanceof java.sql.SQLTransientException || t instanceof java.sql.SQLRecoverableException) {
        return true;
      }
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        String state = sql.getSQLState();
        if (CONFLICTS.contains(state) || STATEMENT_TIMEOUT.equals(state) || state.startsWith("08") || state.startsWith("57P")
            || BucketMovedException.SQLSTATE_MOVED.equals(state) || BucketMovedException.SQLSTATE_FROZEN.equals(state)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Whether {@code e} is Hibernate's or Jakarta Persistence's report of something a shard answered. */
  private static boolean fromShard(RuntimeException e) {
    if (!(e instanceof PersistenceException)) {
      return false;
    }
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException || t instanceof StaleStateException || t instanceof OptimisticLockException) {
        return true;
      }
    }
    return false;
  }

  private static RuntimeException fencedOrShardwise(RuntimeException e, String shardId, LongFunction<ShardMap> refresh) {
    RuntimeException fenced = fenced(e, shardId, refresh);
    if (fenced != null) {
      return fenced;
    }
    if (!(e instanceof PersistenceException)) {
      return null; // the application's own exception, whatever it wraps
    }
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ShardwiseException shardwise) {
        return shardwise;
      }
    }
    SQLException sql = sqlCause(e);
    if (sql != null && STATEMENT_TIMEOUT.equals(sql.getSQLState())) {
      return new ShardUnavailableException((shardId == null ? "A shard" : "Shard '" + shardId + "'")
          + " did not answer in time: it cancelled a statement at its statement_timeout (SQLSTATE 57014: "
          + sql.getMessage() + "), the unit of work's deadline or shardwise.<role>.statement_timeout_ms. Nothing of"
          + " the unit of work since its last commit was kept; retry it later, or give it a longer deadline if the"
          + " statement is slow rather than the shard busy.", shardId, null, e);
    }
    return null;
  }

  private static String what(RuntimeException e) {
    SQLException sql = sqlCause(e);
    String state = sql == null ? null : sql.getSQLState();
    String kind = state == null ? (isStaleRow(e) ? "a versioned row was changed or deleted by another transaction"
            : "an error")
        : switch (state) {
          case "55P03" -> "a lock wait timed out (lock_timeout)";
          case "40P01" -> "a deadlock with another transaction";
          case "40001" -> "a serialization failure (a concurrent transaction changed what this one read)";
          case "57014" -> "a statement was cancelled (statement_timeout)";
          default -> "an error";
        };
    return kind + " (" + (state == null ? "" : "SQLSTATE " + state + ": ")
        + (sql == null ? e.getMessage() : sql.getMessage()) + ")";
  }

  private static boolean isStaleRow(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof StaleStateException || t instanceof OptimisticLockException) {
        return true;
      }
    }
    return false;
  }

  private static String advice(boolean retryable) {
    return retryable ? "another transaction was in the way: retry the unit of work."
        : "the shard refused the work itself, and would refuse the same work again.";
  }

  private static SQLException sqlCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException sql) {
        return sql;
      }
    }
    return null;
  }

  // ---------------------------------------------------------------------------------------------
  // A move's fence
  // ---------------------------------------------------------------------------------------------

  /**
   * A write refused by a move's fence on the shard (SQLSTATE {@code SW001}/{@code SW002} anywhere in
   * the cause chain) as a {@link BucketMovedException}, after the router has loaded the newest shard
   * map; null for anything else.
   */
  private static BucketMovedException fenced(RuntimeException e, String shardId, LongFunction<ShardMap> refresh) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof BucketMovedException moved) {
        return moved;
      }
      if (t instanceof SQLException sql && (BucketMovedException.SQLSTATE_MOVED.equals(sql.getSQLState())
          || BucketMovedException.SQLSTATE_FROZEN.equals(sql.getSQLState()))) {
        boolean frozen = BucketMovedException.SQLSTATE_FROZEN.equals(sql.getSQLState());
        String detail = detail(sql);
        int bucket = (int) detailNumber(detail, "bucket");
        long version = detailNumber(detail, "version");
        String refreshed;
        try {
          ShardMap map = refresh.apply(version);
          refreshed = "the router now routes with shard map version " + map.version()
              + (bucket >= 0 && bucket < map.bucketCount() ? ", where bucket " + bucket + " belongs to shard '"
                  + map.ownerOf(bucket) + "'" : "");
        } catch (RuntimeException refreshFailure) {
          e.addSuppressed(refreshFailure);
          refreshed = "the router could not refresh its shard map (" + refreshFailure.getMessage() + ")";
        }
        String owner = detailText(detail, "owner");
        return new BucketMovedException((shardId == null ? "A shard" : "Shard '" + shardId + "'") + " refused the write: "
            + sql.getMessage() + (frozen ? " (the bucket is frozen by a write switch in progress)" : "")
            + ". Nothing was committed; " + refreshed + ". Retry the unit of work through shards.forKey(key).", bucket,
            owner, version, e);
      }
    }
    return null;
  }

  /** The DETAIL line of a server error ({@code bucket=17 owner=s2 version=9} from a move's fence), or "". */
  private static String detail(SQLException sql) {
    if (sql instanceof org.postgresql.util.PSQLException psql && psql.getServerErrorMessage() != null
        && psql.getServerErrorMessage().getDetail() != null) {
      return psql.getServerErrorMessage().getDetail();
    }
    return "";
  }

  private static long detailNumber(String detail, String name) {
    String text = detailText(detail, name);
    try {
      return text == null ? -1 : Long.parseLong(text);
    } catch (NumberFormatException notANumber) {
      return -1;
    }
  }

  private static String detailText(String detail, String name) {
    for (String part : detail.split(" ")) {
      if (part.startsWith(name + "=") && part.length() > name.length() + 1) {
        return part.substring(name.length() + 1);
      }
    }
    return null;
  }
}
