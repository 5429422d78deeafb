package io.shardwise.hibernate.operations.internal;

import io.shardwise.hibernate.operations.ShardKeyWarning;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Judges shard key columns by PostgreSQL's own sample: {@code pg_stats.n_distinct} and
 * {@code correlation}, which {@code ANALYZE} computes from at most 300 × the statistics target
 * rows. Nothing here reads the tables themselves.
 */
final class ShardKeyCheck {
  /** Below this many rows per distinct key a small key count only means a small table. */
  static final double ROWS_PER_KEY = 10;
  static final double MONOTONIC_CORRELATION = 0.9;

  private static final String STATS = """
      SELECT s.n_distinct, s.correlation, c.reltuples
        FROM pg_stats s
        JOIN pg_namespace n ON n.nspname = s.schemaname
        JOIN pg_class c ON c.relnamespace = n.oid AND c.relname = s.tablename
       WHERE s.tablename = ? AND s.attname = ? AND (? IS NULL AND s.schemaname = ANY (current_schemas(false))
             OR s.schemaname = ?)""";

  /** One sharded table and its key column, as mapped. */
  record KeyColumn(String table, String column) {}

  private ShardKeyCheck() {}

  /**
   * The warnings for {@code columns} on one shard.
   *
   * @param rangeSharded whether keys are placed by range (then a growing key is a hotspot)
   */
  static List<ShardKeyWarning> check(String shardId, Connection connection, List<KeyColumn> columns, int buckets,
      boolean rangeSharded) throws SQLException {
    List<ShardKeyWarning> warnings = new ArrayList<>();
    try (PreparedStatement ps = connection.prepareStatement(STATS)) {
      for (KeyColumn key : columns) {
        int dot = key.table().lastIndexOf('.');
        String schema = dot < 0 ? null : unquoted(key.table().substring(0, dot));
        ps.setString(1, unquoted(key.table().substring(dot + 1)));
        ps.setString(2, unquoted(key.column()));
        ps.setString(3, schema);
        ps.setString(4, schema);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            double nDistinct = rs.getDouble(1);
            double correlation = rs.getDouble(2);
            double rows = Math.max(0, rs.getDouble(3));
            double distinct = nDistinct >= 0 ? nDistinct : -nDistinct * rows;
            judge(shardId, key, distinct, correlation, rows, buckets, rangeSharded, warnings);
          }
        }
      }
    }
    return warnings;
  }

  static void judge(String shardId, KeyColumn key, double distinct, double correlation, double rows, int buckets,
      boolean rangeSharded, List<ShardKeyWarning> warnings) {
    if (distinct > 0 && distinct < buckets && rows >= ROWS_PER_KEY * distinct) {
      warnings.add(new ShardKeyWarning(ShardKeyWarning.Kind.LOW_CARDINALITY, key.table(), key.column(), shardId,
          distinct, correlation, String.format(Locale.ROOT, "%s.%s has about %,.0f distinct values in %,.0f rows on"
              + " %s (PostgreSQL's statistics): fewer keys than the %,d buckets, so most buckets stay empty and each"
              + " key's whole load stays on one shard; adding shards will not spread it. Shard by a column with"
              + " many more values (co-locate the rest with @CoLocated), or give the largest keys shards of their"
              + " own with directory entries.", key.table(), key.column(), distinct, rows, shardId, buckets)));
    }
    if (rangeSharded && Math.abs(correlation) >= MONOTONIC_CORRELATION && rows >= ROWS_PER_KEY) {
      warnings.add(new ShardKeyWarning(ShardKeyWarning.Kind.MONOTONIC, key.table(), key.column(), shardId,
          distinct, correlation, String.format(Locale.ROOT, "%s.%s grows with its rows on %s (correlation %.2f):"
              + " under range sharding every new row goes to the shard of the highest range, which takes all"
              + " inserts. Use the bucket strategy (hashing spreads growing keys), or split the last range ahead"
              + " of the keys.", key.table(), key.column(), shardId, correlation)));
    }
  }

  private static String unquoted(String name) {
    return name.startsWith("\"") && name.endsWith("\"") && name.length() > 1 ? name.substring(1, name.length() - 1)
        : name.toLowerCase(Locale.ROOT);
  }
}
