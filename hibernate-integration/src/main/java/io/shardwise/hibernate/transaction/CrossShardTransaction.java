package io.shardwise.hibernate.transaction;

import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.hibernate.Session;

/**
 * One unit of work over several shards, given to the callback of {@link io.shardwise.hibernate.ShardedSessions#atomically}.
 * Each shard that the work touches gets one Hibernate session and one local transaction, opened on
 * first use and shared by every later call for the same shard; the work runs at once, so a later
 * call sees what an earlier one read or wrote on the same shard.
 *
 * <p>When the callback returns, every participating shard flushes; every shard but the last one
 * touched prepares ({@code PREPARE TRANSACTION}); the last one commits its local transaction, which
 * is the commit decision; then the others commit ({@code COMMIT PREPARED}). All shards commit or
 * none does, also when the coordinator stalls or dies at any point (recovery reads the outcome from
 * the last shard's transaction status). Do not call {@code beginTransaction}, {@code commit} or
 * {@code close} on these sessions.
 *
 * <h2>Read what you change through {@link #lock}</h2>
 *
 * A plain {@code find} reads without a row lock: two transfers that read the same balance both
 * write their own result, and one of the two updates is lost. Read the rows the work will change
 * through {@link #lock(Class, Object...)}, which locks them for update on their shards, all in one
 * global order, so that two transactions never wait for each other across shards (PostgreSQL
 * detects deadlocks within one server, not across two):
 *
 * <pre>{@code
 * shards.atomically(tx -> {
 *   List<Account> accounts = tx.lock(Account.class, fromId, toId);
 *   accounts.get(0).withdraw(amount);
 *   accounts.get(1).deposit(amount);
 * });
 * }</pre>
 *
 * <h2>Exceptions</h2>
 *
 * <ul>
 *   <li>An exception of the application's own thrown by the work propagates unchanged — the same
 *       instance — after every shard the work touched was rolled back: nothing it wrote is visible
 *       anywhere.</li>
 *   <li>{@link CrossShardAbortedException}: a shard answered the work, a flush, a prepare or a
 *       commit with an error (a lock timeout, a deadlock, a serialization failure, a constraint...),
 *       a shard could not be reached before the commit decision, or recovery had already ended the
 *       transaction; every shard was rolled back, the failure is the cause. Safe to retry;
 *       {@link CrossShardAbortedException#isRetryable()} says whether the same work may succeed.</li>
 *   <li>{@code BucketMovedException}: a move's fence refused a write; every shard was rolled back
 *       and the router has loaded the new map: retry at once.</li>
 *   <li>{@link TransactionInDoubtException}: every shard prepared, but the commit decision could
 *       not be confirmed; recovery settles it, all or nothing.</li>
 *   <li>When the work touched a single shard, there is no two-phase commit: that shard commits
 *       locally, and its failures are translated the same way; a commit that lost its connection is
 *       {@code ShardUnavailableException}, its outcome unknown.</li>
 * </ul>
 */
public interface CrossShardTransaction {

  /** Runs {@code work} in this transaction's session on the shard that owns {@code key}. */
  void on(Object key, Consumer<Session> work);

  /** The same, returning a value. */
  <R> R from(Object key, Function<Session, R> work);

  /** Runs {@code work} in this transaction's session on a shard named directly. */
  void onShard(String shardId, Consumer<Session> work);

  /** The shards this transaction has touched so far. */
  java.util.Set<String> shards();

  /**
   * Reads the entities with these ids and locks their rows for update
   * ({@code PESSIMISTIC_WRITE}), each in this transaction's session on the shard that owns it, and
   * returns them in the order of {@code ids}. The rows are locked in one global order — ascending
   * id (numbers by value, text by {@code String} order, UUIDs by {@code UUID} order) — whatever the
   * order of the arguments, so that two transactions locking overlapping rows queue instead of
   * deadlocking across shards. An entity already loaded in the session is read again under the
   * lock, so it never carries a value read before the lock.
   *
   * <p>Lock everything the work will change in one call, first. A later call may only lock ids
   * above those already locked (the global order again); a lower one is refused with
   * {@link IllegalStateException} before anything is locked.
   *
   * @param type an entity whose id is its shard key (for instance an account keyed by its id)
   * @throws IllegalArgumentException if {@code type} is not an entity whose id is its shard key,
   *     or the ids are not all of one kind
   * @throws jakarta.persistence.EntityNotFoundException naming the ids that have no row
   */
  default <T> List<T> lock(Class<T> type, Object... ids) {
    throw new UnsupportedOperationException("lock is implemented by the transactions ShardedSessions.atomically"
        + " hands to its work");
  }

  /** {@link #lock(Class, Object...)} for one row. */
  default <T> T lock(Class<T> type, Object id) {
    return lock(type, new Object[] {id}).get(0);
  }
}
