package io.shardwise.hibernate.transaction;

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
 * <p>Lock rows in one global order (for instance ascending key) when several transactions may touch
 * the same rows on different shards: PostgreSQL detects deadlocks within one server, not across two.
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
}
