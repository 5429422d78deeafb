package io.shardwise.hibernate.internal.query;

import io.shardwise.hibernate.internal.ShardSessions;
import io.shardwise.hibernate.ShardKeyException;
import io.shardwise.hibernate.internal.ShardedEntity;
import io.shardwise.hibernate.routing.internal.Router;
import io.shardwise.hibernate.NoShardSelectedException;
import java.util.Collection;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.hibernate.engine.spi.SharedSessionContractImplementor;

/**
 * Checks shard key values against the shard of the session that is about to use them (and binds a
 * session opened without a shard to the shard of the first one, {@link #bind}): a query
 * whose key is pinned to a value owned by another shard, or a {@code find} by a key that lives
 * elsewhere, would run on the session's shard and answer "nothing" for rows that exist. Each check
 * is one routing decision and one string comparison; it runs for every execution, because
 * Hibernate reuses one translation for every session and binds values per execution.
 */
public final class ShardKeyValues {

  private final Router router;
  private final io.shardwise.hibernate.metrics.ShardwiseMetrics metrics;
  /** Whether a session of no shard holds writes (of reference tables) made before it binds: such a session never moves. */
  private volatile Predicate<SharedSessionContractImplementor> wroteUnbound = session -> false;

  public ShardKeyValues(Router router, io.shardwise.hibernate.metrics.ShardwiseMetrics metrics) {
    this.router = router;
    this.metrics = metrics;
  }

  /** Set once the guard exists: which sessions of no shard hold writes and so may not bind. */
  public void refuseBindingWhen(Predicate<SharedSessionContractImplementor> wroteUnbound) {
    this.wroteUnbound = wroteUnbound;
  }

  /**
   * Binds a session opened without a shard to {@code shardId}, the shard of the first key it uses
   * ({@code firstUse} says which, for the refusal): from now on it runs there, and another shard's
   * key is refused as in any session. Refused, with nothing sent, when the session already wrote.
   */
  public void bind(SharedSessionContractImplementor session, String shardId, String firstUse) {
    if (wroteUnbound.test(session)) {
      metrics.refused(io.shardwise.hibernate.metrics.ShardwiseMetrics.Refusal.NO_SHARD);
      throw new NoShardSelectedException("[BindAfterWrite] Cannot " + firstUse + ": this session was opened without"
          + " a shard and has already written @ReferenceTable rows (made on every shard when it commits), so it"
          + " cannot also bind to shard '" + shardId + "' — the two would commit apart. Commit the reference-table"
          + " writes first (or make them through shards.referenceTables()), or choose the shard before the session"
          + " opens (shards.forKey(key), shards.contextForKey(key)). Nothing was sent.");
    }
    ShardSessions.bind(session, shardId);
  }

  /**
   * Admits {@code value} as the key of a query pin, or throws {@link ShardKeyException} naming the
   * value, its shard and the session's shard. Inside the scatter-gather bypass nothing is checked:
   * a scatter query runs on every shard on purpose, and each shard answers for its own keys.
   */
  void requireQueryValue(KeyPins pins, ShardedEntity entity, Object value, SharedSessionContractImplementor session) {
    if (value == null || QueryGuard.bypassed()) {
      return;
    }
    String sessionShard = ShardSessions.shardOf(session);
    if (value instanceof Collection<?> values) {
      for (Object each : values) {
        requireQueryValue(pins, entity, each, session);
      }
      return;
    }
    if (value instanceof Object[] values) {
      for (Object each : values) {
        requireQueryValue(pins, entity, each, session);
      }
      return;
    }
    String owner = router.shardFor(value);
    if (ShardSessions.NO_SHARD.equals(sessionShard)) {
      bind(session, owner, "run this query on the shard of " + entity.simpleName() + "." + entity.keyAttribute()
          + " = " + quoted(value));
      return;
    }
    if (!owner.equals(sessionShard)) {
      metrics.refused(io.shardwise.hibernate.metrics.ShardwiseMetrics.Refusal.WRONG_SHARD);
      throw new ShardKeyException("[ShardKeyOnOtherShard] This query pins " + entity.simpleName() + "."
          + entity.keyAttribute() + " = " + quoted(value) + ", which belongs to shard '" + owner + "', but it runs in"
          + " a session on shard '" + sessionShard + "': there it would miss every row of that key and answer as if"
          + " there were none." + pins.groupsNote(entity) + " Open the session by that key (shards.forKey("
          + quoted(value) + ")), or run the query on every shard through the scatter-gather API. Nothing was sent.");
    }
  }

  /**
   * Admits a {@code find}/{@code getReference}/{@code byId} of a sharded entity by a key value, or
   * throws {@link ShardKeyException}: the row cannot be on the session's shard.
   */
  public void requireLoadKey(ShardedEntity entity, Object key, SharedSessionContractImplementor session) {
    if (key == null) {
      return;
    }
    String sessionShard = ShardSessions.shardOf(session);
    String owner = router.shardFor(key);
    if (ShardSessions.NO_SHARD.equals(sessionShard)) {
      bind(session, owner, "load " + entity.simpleName() + " with " + entity.keyAttribute() + " = " + quoted(key));
      return;
    }
    if (!owner.equals(sessionShard)) {
      metrics.refused(io.shardwise.hibernate.metrics.ShardwiseMetrics.Refusal.WRONG_SHARD);
      throw new ShardKeyException("[ShardKeyOnOtherShard] Cannot load " + entity.simpleName() + " with "
          + entity.keyAttribute() + " = " + quoted(key) + " in a session on shard '" + sessionShard + "': that key"
          + " belongs to shard '" + owner + "', so the row cannot be here, and answering null would hide it. Open"
          + " the session by its key — shards.forKey(" + quoted(key) + ").fromSession(s -> s.find("
          + entity.simpleName() + ".class, ...)). Nothing was sent.");
    }
  }

  private static String quoted(Object value) {
    return value instanceof CharSequence || value instanceof java.util.UUID ? "'" + value + "'" : String.valueOf(value);
  }

  /** The key pins of one translated statement: which co-location groups it pins, for messages. */
  static final class KeyPins {
    private final java.util.Map<String, ShardedEntity> byGroup = new java.util.LinkedHashMap<>();

    void add(ShardedEntity entity) {
      byGroup.putIfAbsent(entity.group(), entity);
    }

    /** For a query over several co-location groups: which groups, and that their keys must meet. */
    String groupsNote(ShardedEntity failing) {
      if (byGroup.size() < 2) {
        return "";
      }
      String groups = byGroup.values().stream()
          .map(e -> e.simpleName() + "." + e.keyAttribute())
          .collect(Collectors.joining(", "));
      return " The query joins " + byGroup.size() + " co-location groups (keys " + groups + "): it can run on one"
          + " shard only when every key it pins belongs to that shard.";
    }
  }
}
