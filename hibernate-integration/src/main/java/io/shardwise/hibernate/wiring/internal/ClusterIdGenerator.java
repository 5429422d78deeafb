package io.shardwise.hibernate.wiring.internal;

import io.shardwise.hibernate.ShardKeyException;
import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.ShardwiseException;
import io.shardwise.hibernate.ShardwiseSettings;
import io.shardwise.hibernate.internal.PrimaryConnections;
import io.shardwise.hibernate.routing.ControlDatabase;
import io.shardwise.hibernate.routing.internal.Router;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongFunction;
import org.hibernate.engine.spi.SharedSessionContractImplementor;
import org.hibernate.generator.BeforeExecutionGenerator;
import org.hibernate.generator.EventType;
import org.hibernate.generator.EventTypeSets;

/**
 * The id generator of {@code shardwise.ids.generated = cluster}: an entity keeps its id type and its
 * {@code @GeneratedValue} mapping, but the values come from one counter per table in the control
 * database ({@code shardwise.id_counter}), so no two shards ever hand out the same id.
 *
 * <p>An instance reserves {@link #BLOCK} consecutive values at a time with one {@code UPDATE ...
 * RETURNING}. Ids route like every other key (hash → bucket → shard), so they move with their
 * bucket and existing rows keep routing as before. A root whose shard key is its id needs an id of
 * the session's shard: the block's values are filed by the shard they route to, the session takes
 * one of its own, and the others wait for sessions of their shards (new roots are placed by weight,
 * as the buckets are, so the queues drain evenly; each keeps at most {@link #KEPT_PER_SHARD}).
 *
 * <p>The counter of a table starts above the largest id any shard holds (and above its identity or
 * serial sequence), read once when the counter row is created. A {@code GENERATED ALWAYS} identity
 * column would refuse the explicit values and is refused then, with the statement that fixes it.
 */
public final class ClusterIdGenerator implements BeforeExecutionGenerator {
  static final int BLOCK = 128;
  static final int KEPT_PER_SHARD = 4 * BLOCK;

  private final String entity;
  private final String table;
  private final String column;
  private final Class<?> idType;
  private final long maxId;
  private final ControlDatabase control;
  private final PrimaryConnections shards;
  private final java.util.function.Supplier<Collection<String>> shardIds;
  /** The router of a root whose shard key is this id, whose ids must route to the session's shard; else null. */
  private final Router router;

  private long next;
  private long end;
  private final Map<String, ArrayDeque<Long>> routed = new HashMap<>();

  ClusterIdGenerator(String entity, String table, String column, Class<?> idType, ControlDatabase control,
      PrimaryConnections shards, java.util.function.Supplier<Collection<String>> shardIds, Router router) {
    this.entity = entity;
    this.table = table;
    this.column = column;
    this.idType = idType;
    this.maxId = idType == Integer.class || idType == int.class ? Integer.MAX_VALUE
        : idType == Short.class || idType == short.class ? Short.MAX_VALUE : Long.MAX_VALUE;
    this.control = control;
    this.shards = shards;
    this.shardIds = shardIds;
    this.router = router;
  }

  /** Whether {@code id} is not set yet: null, or 0 (a primitive's default). */
  public static boolean isUnset(Object id) {
    return id == null || id instanceof Number n && n.longValue() == 0L;
  }

  /**
   * A new id, or the id the application already set (never overwritten). A root's id routes to the
   * session's shard (Shardwise's write guard sets it already at {@code persist}; this covers the
   * paths that insert without a persist event, such as {@code merge} of a new root).
   */
  @Override
  public Object generate(SharedSessionContractImplementor session, Object owner, Object currentValue,
      EventType eventType) {
    if (!isUnset(currentValue)) {
      return currentValue;
    }
    String shard = io.shardwise.hibernate.internal.ShardSessions.shardOf(session);
    return router != null && shard != null && router.map().shards().containsKey(shard) ? nextRouted(shard)
        : typed(next());
  }

  @Override
  public boolean allowAssignedIdentifiers() {
    return true;
  }

  @Override
  public EnumSet<EventType> getEventTypes() {
    return EventTypeSets.INSERT_ONLY;
  }

  /** The next id of the table, routed nowhere in particular (entities whose key is not their id). */
  synchronized long next() {
    if (next >= end) {
      reserve();
    }
    return next++;
  }

  /**
   * An id that routes to {@code shard} under the current shard map, as the entity's id type. Gives
   * up with {@code [NoIdForShard]} after as many values as a Snowflake root would draw.
   */
  synchronized Object nextRouted(String shard) {
    LongFunction<String> route = router::shardFor;
    int maxDraws = ShardGuard.maxDraws(router);
    long drawn = 0;
    while (true) {
      ArrayDeque<Long> mine = routed.get(shard);
      while (mine != null && !mine.isEmpty()) {
        long id = mine.poll();
        String owner = route.apply(id);
        if (owner.equals(shard)) {
          return typed(id);
        }
        file(owner, id);                                   // its bucket moved since it was filed
      }
      if (drawn >= maxDraws) {
        throw new ShardKeyException("[NoIdForShard] Cannot persist " + entity + " in a session on shard '" + shard
            + "': none of " + drawn + " ids drawn from the cluster counter of " + table + " routes to that shard"
            + " under shard map version " + router.map().version() + ". New roots need a shard that owns buckets: open the"
            + " session with shards.forNewRoot(" + entity + ".class), which picks such a shard. Nothing was written.");
      }
      reserve();
      for (; next < end; next++) {
        file(route.apply(next), next);
      }
      drawn += BLOCK;
    }
  }

  private void file(String shard, long id) {
    ArrayDeque<Long> queue = routed.computeIfAbsent(shard, s -> new ArrayDeque<>());
    if (queue.size() < KEPT_PER_SHARD) {
      queue.add(id);
    }
  }

  private Object typed(long id) {
    if (idType == Integer.class || idType == int.class) {
      return (int) id;
    }
    if (idType == Short.class || idType == short.class) {
      return (short) id;
    }
    return id;
  }

  // ---- the counter in the control database ---------------------------------------------------

  private void reserve() {
    try (Connection c = control.openConnection("shardwise-ids")) {
      long first = take(c);
      if (first < 0) {
        create(c, start());
        first = take(c);
      }
      if (first > maxId) {
        throw new ShardwiseException("[IdsExhausted] The cluster counter of " + table + " is at " + first + ", past the"
            + " largest " + idType.getSimpleName() + " id (" + maxId + ") of " + entity + "." + column + ": widen the id"
            + " (Long and a bigint column) before more rows can be inserted. Nothing was written.");
      }
      next = first;
      end = first + Math.min(BLOCK - 1, maxId - first) + 1;     // maxId + 1 would overflow for long ids
    } catch (SQLException e) {
      throw new ShardwiseException("Could not reserve ids for " + entity + " from the counter shardwise.id_counter of"
          + " control database " + control.displayUrl() + " (" + ShardwiseSettings.IDS_GENERATED + " = cluster): "
          + e.getMessage() + ". Nothing was written.", e);
    }
  }

  /** The first of {@link #BLOCK} reserved values, or -1 when the table has no counter yet. */
  private long take(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "UPDATE shardwise.id_counter SET next_id = next_id + ? WHERE table_name = ? RETURNING next_id - ?")) {
      ps.setLong(1, BLOCK);
      ps.setString(2, table);
      ps.setLong(3, BLOCK);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : -1;
      }
    }
  }

  private void create(Connection c, long start) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(
        "INSERT INTO shardwise.id_counter (table_name, next_id) VALUES (?, ?) ON CONFLICT (table_name) DO NOTHING")) {
      ps.setString(1, table);
      ps.setLong(2, start);
      ps.executeUpdate();
    }
  }

  /**
   * The value the sequence would hand out next, less one: its last value once called, else one below
   * where it starts ({@code START WITH}, {@code RESTART WITH}), so ids the schema reserved below the
   * start stay reserved.
   */
  private static long lastValueBeforeNext(Connection c, String sequence) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM "
            + sequence)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * One above the largest id of the table on any shard and above what its serial or identity
   * sequence has handed out or reserved (see {@link #lastValueBeforeNext}); refuses a {@code GENERATED ALWAYS} identity column on any shard.
   */
  private long start() {
    long highest = 0;
    for (String shard : shardIds.get()) {
      try (Connection c = shards.primary(shard);
          PreparedStatement ps = c.prepareStatement("""
              SELECT (SELECT a.attidentity FROM pg_attribute a WHERE a.attrelid = to_regclass(?) AND a.attname = ?),
                     pg_get_serial_sequence(?, ?)
              WHERE to_regclass(?) IS NOT NULL""")) {
        ps.setString(1, table);
        ps.setString(2, column.toLowerCase(java.util.Locale.ROOT));
        ps.setString(3, table);
        ps.setString(4, column.toLowerCase(java.util.Locale.ROOT));
        ps.setString(5, table);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            continue;                                        // no such table on this shard yet
          }
          if ("a".equals(rs.getString(1))) {
            throw new ShardingConfigurationException("[IdentityAlways] " + table + "." + column + " on shard '" + shard
                + "' is GENERATED ALWAYS AS IDENTITY, which refuses the ids " + ShardwiseSettings.IDS_GENERATED
                + " = cluster supplies for " + entity + ". Run ALTER TABLE " + table + " ALTER COLUMN " + column
                + " SET GENERATED BY DEFAULT on every shard (a catalog change: no rewrite, no data change)."
                + " Nothing was written.");
          }
          String sequence = rs.getString(2);
          if (sequence != null) {
            highest = Math.max(highest, lastValueBeforeNext(c, sequence));
          }
        }
        try (PreparedStatement max = c.prepareStatement("SELECT coalesce(max(" + column + "), 0) FROM " + table);
            ResultSet rs = max.executeQuery()) {
          rs.next();
          highest = Math.max(highest, rs.getLong(1));
        }
      } catch (SQLException e) {
        throw new ShardwiseException("Could not start the cluster id counter of " + table + " (" + entity + "): reading"
            + " its largest id on shard '" + shard + "' failed: " + e.getMessage() + ". Nothing was written.", e);
      }
    }
    return highest + 1;
  }
}
