package io.shardwise.hibernate.routing;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The shard map's tables in the control database ({@code shardwise.shard}, {@code shardwise.bucket},
 * {@code shardwise.map_version}): the SQL that reads the map in one snapshot, writes a shard, and
 * announces a new version. {@link ControlDatabase} owns the changes' transactions (lock the version
 * row, apply, raise, notify) and calls this on their connections; router leases are
 * {@link RouterLeaseTable}'s.
 */
final class ShardMapTables {
  private ShardMapTables() {}

  /** The whole map in one REPEATABLE READ snapshot, or null if none is stored; leaves autocommit on. */
  static ShardMap readMap(Connection c) throws SQLException {
    c.setAutoCommit(false);
    try {
      c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      ShardMap map = readMapInTransaction(c);
      c.commit();
      return map;
    } finally {
      if (!c.isClosed()) {
        c.rollback();
        c.setAutoCommit(true);
      }
    }
  }

  /** The stored version, or -1 if none. */
  static long readVersion(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT version FROM shardwise.map_version")) {
      return rs.next() ? rs.getLong(1) : -1;
    }
  }

  static ShardMap readMapInTransaction(Connection c) throws SQLException {
    long version = readVersion(c);
    if (version < 0) {
      return null;
    }
    List<ShardDescriptor> shards = new ArrayList<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(
            "SELECT id, primary_url, replica_urls, weight, state FROM shardwise.shard ORDER BY ordinal, id")) {
      while (rs.next()) {
        Array replicas = rs.getArray(3);
        shards.add(new ShardDescriptor(rs.getString(1), rs.getString(2), List.of((String[]) replicas.getArray()),
            rs.getInt(4), ShardState.valueOf(rs.getString(5))));
      }
    }
    List<String> owners = new ArrayList<>(ShardMap.DEFAULT_BUCKETS);
    List<String> readers = new ArrayList<>(ShardMap.DEFAULT_BUCKETS);
    List<String> copies = new ArrayList<>(ShardMap.DEFAULT_BUCKETS);
    boolean switchedReads = false;
    boolean copied = false;
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(
            "SELECT bucket, shard_id, read_shard_id, copy_shard_id FROM shardwise.bucket ORDER BY bucket")) {
      while (rs.next()) {
        if (rs.getInt(1) != owners.size()) {
          throw new IllegalStateException("The shard map in the control database has no row for bucket "
              + owners.size() + " (buckets must be 0..n-1 without gaps); restore shardwise.bucket");
        }
        owners.add(rs.getString(2));
        readers.add(rs.getString(3));
        switchedReads |= rs.getString(3) != null;
        copies.add(rs.getString(4));
        copied |= rs.getString(4) != null;
      }
    }
    return new ShardMap(version, shards, owners.toArray(new String[0]),
        switchedReads ? readers.toArray(new String[0]) : null, copied ? copies.toArray(new String[0]) : null);
  }

  static void writeShard(Connection c, ShardDescriptor shard) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("""
        INSERT INTO shardwise.shard (id, primary_url, replica_urls, weight, state) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (id) DO UPDATE SET primary_url = excluded.primary_url, replica_urls = excluded.replica_urls,
          weight = excluded.weight, state = excluded.state""")) {
      ps.setString(1, shard.id());
      ps.setString(2, shard.primaryUrl());
      ps.setArray(3, c.createArrayOf("text", shard.replicaUrls().toArray()));
      ps.setInt(4, shard.weight());
      ps.setString(5, shard.state().name());
      ps.executeUpdate();
    }
  }

  static Set<String> shardIds(Connection c) throws SQLException {
    Set<String> ids = new TreeSet<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id FROM shardwise.shard")) {
      while (rs.next()) {
        ids.add(rs.getString(1));
      }
    }
    return ids;
  }

  static int bucketCount(Connection c) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM shardwise.bucket")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  static void notifyVersion(Connection c, long version) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
      ps.setString(1, ControlDatabase.CHANNEL);
      ps.setString(2, Long.toString(version));
      ps.execute();
    }
  }

  /** Sets {@code column} ({@code read_shard_id}, {@code copy_shard_id}) of each bucket; the owner's id clears it. */
  static void setSecondShard(Connection c, String column, Map<Integer, String> shardOfBucket) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("UPDATE shardwise.bucket b SET " + column + " = "
        + "CASE WHEN u.shard_id = b.shard_id THEN NULL ELSE u.shard_id END "
        + "FROM unnest(?::int[], ?::text[]) AS u(bucket, shard_id) WHERE b.bucket = u.bucket")) {
      ps.setArray(1, c.createArrayOf("int4", shardOfBucket.keySet().toArray()));
      ps.setArray(2, c.createArrayOf("text", shardOfBucket.values().toArray()));
      ps.executeUpdate();
    }
  }

  /**
   * Gives each bucket its new owner and clears its read owner; a bucket given to the shard that holds
   * its copy leaves the copy on its old owner (until the move completes).
   */
  static void assignOwners(Connection c, Map<Integer, String> owners) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("UPDATE shardwise.bucket b SET shard_id = u.shard_id, "
        + "read_shard_id = NULL, copy_shard_id = CASE WHEN b.copy_shard_id = u.shard_id AND b.shard_id <> u.shard_id"
        + " THEN b.shard_id ELSE b.copy_shard_id END"
        + " FROM unnest(?::int[], ?::text[]) AS u(bucket, shard_id) WHERE b.bucket = u.bucket")) {
      ps.setArray(1, c.createArrayOf("int4", owners.keySet().toArray()));
      ps.setArray(2, c.createArrayOf("text", owners.values().toArray()));
      ps.executeUpdate();
    }
  }

  /** Inserts every bucket of {@code map} with its owner (into an empty {@code shardwise.bucket}). */
  static void insertBuckets(Connection c, ShardMap map) throws SQLException {
    Integer[] buckets = new Integer[map.bucketCount()];
    for (int b = 0; b < buckets.length; b++) {
      buckets[b] = b;
    }
    try (PreparedStatement ps = c.prepareStatement(
        "INSERT INTO shardwise.bucket (bucket, shard_id) SELECT * FROM unnest(?::int[], ?::text[])")) {
      ps.setArray(1, c.createArrayOf("int4", buckets));
      ps.setArray(2, c.createArrayOf("text", map.bucketOwnersCopy()));
      ps.executeUpdate();
    }
  }

  /** A server setting of integer type, on this connection. */
  static int intSetting(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT current_setting(?)::int")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  /** Refuses an assignment to a bucket or shard that is not in the map, naming every one. */
  static void validateAssignment(Connection c, Map<Integer, String> sorted, String displayUrl) throws SQLException {
    int bucketCount = ShardMapTables.bucketCount(c);
    Set<String> shards = ShardMapTables.shardIds(c);
    List<String> problems = new ArrayList<>();
    sorted.forEach((bucket, shard) -> {
      if (bucket < 0 || bucket >= bucketCount) {
        problems.add("bucket " + bucket + " does not exist (the map has buckets 0.." + (bucketCount - 1)
            + ", a number fixed for the life of the deployment)");
      } else if (!shards.contains(shard)) {
        problems.add("bucket " + bucket + " cannot go to shard '" + shard + "', which is not in the map "
            + "(add it with upsertShard first)");
      }
    });
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("Refused to assign buckets in control database " + displayUrl
          + "; nothing changed. Shards are " + shards + "; " + String.join("; ", problems));
    }
  }

  /** A readable description of how two maps differ in shards or bucket owners, or null if they do not. */
  static String difference(ShardMap stored, ShardMap given) {
    if (!stored.shards().equals(given.shards())) {
      for (ShardDescriptor s : given.shards().values()) {
        ShardDescriptor old = stored.shards().get(s.id());
        if (!s.equals(old)) {
          return old == null ? "shard '" + s.id() + "' is not in the stored map (stored shards: "
              + stored.shards().keySet() + ")" : "shard '" + s.id() + "' is stored as " + old + ", given as " + s;
        }
      }
      return "the stored map has more shards: " + stored.shards().keySet() + " instead of " + given.shards().keySet();
    }
    if (stored.bucketCount() != given.bucketCount()) {
      return "the stored map has " + stored.bucketCount() + " buckets, the given one " + given.bucketCount();
    }
    String[] a = stored.bucketOwnersCopy();
    String[] b = given.bucketOwnersCopy();
    if (!Arrays.equals(a, b)) {
      for (int i = 0; i < a.length; i++) {
        if (!a[i].equals(b[i])) {
          return "bucket " + i + " belongs to '" + a[i] + "' in the stored map and to '" + b[i] + "' in the given one";
        }
      }
    }
    return null;
  }
}
