package io.shardwise.hibernate.routing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The write switch's staged map change, below {@link ControlDatabase}'s public operations: its
 * announcement (the notification that tells the routers, before the change commits, what the map will
 * be if it does: {@code staged <version> <token> <shard>=<buckets>;...}, buckets as ranges), the
 * routers' reading of it back into the next map ({@link #parseStaged}, {@link #assigned}), the one
 * statement that applies a staged assignment, and the rollback of a prepared one.
 * {@link ControlDatabase#announceStaged} and {@code StagedAssignment} delegate here;
 * {@link ControlDatabaseShardMapSource} reads the payloads.
 */
final class StagedChanges {
  private static final System.Logger LOG = System.getLogger(ControlDatabase.class.getName());

  /**
   * How a notification announcing a staged change begins: {@code staged <version> <token>
   * <shard>=<buckets>[;<shard>=<buckets>...]}, buckets as ranges ({@code 0-340,512}).
   */
  static final String STAGED_PREFIX = "staged ";

  /** The longest notification payload sent (PostgreSQL's limit is 8000 bytes). */
  private static final int MAX_PAYLOAD = 7_900;

  private StagedChanges() {}

  /**
   * Tells the routers, before a change commits, what the map will be if it does: each follower
   * ({@link ControlDatabaseShardMapSource}) whose map is at {@code expectedVersion} computes the next
   * one now, hands it to its staged listeners (which open connections to the shards that gain
   * buckets) and installs it, without reading the control database, when the commit of the
   * assignment staged with the returned token is announced. Nothing routes by a staged map before
   * that. An online move's write switch calls this before it sets up its freeze.
   *
   * @return the token to stage the assignment with ({@link ControlDatabase#stageAssignment(Connection, long, Map,
   *     String, String)}); a fresh token when nothing could be announced (shard ids with spaces,
   *     {@code =} or {@code ;}, a payload over 7,900 bytes, the control database unreachable): the
   *     routers then load the map when the commit is announced, as for any other change
   */
  static String announce(ControlDatabase control, long expectedVersion, Map<Integer, String> owners) {
    String token = Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong());
    StringBuilder payload = new StringBuilder(STAGED_PREFIX).append(expectedVersion + 1).append(' ').append(token)
        .append(' ');
    Map<String, List<Integer>> byShard = new java.util.TreeMap<>();
    new TreeMap<>(owners).forEach((bucket, shard) -> byShard.computeIfAbsent(shard, k -> new ArrayList<>()).add(bucket));
    String separator = "";
    for (Map.Entry<String, List<Integer>> e : byShard.entrySet()) {
      if (e.getKey().isEmpty() || e.getKey().matches(".*[\\s=;].*")) {
        return token;
      }
      payload.append(separator).append(e.getKey()).append('=').append(ranges(e.getValue()));
      separator = ";";
    }
    if (payload.length() > MAX_PAYLOAD) {
      return token;
    }
    try {
      control.withConnection("announce a staged change", "shardwise-control", c -> {
        notify(c, payload.toString());
        return null;
      });
    } catch (ControlDatabaseException e) {
      LOG.log(System.Logger.Level.INFO, "Could not announce the staged shard map version " + (expectedVersion + 1)
          + " (" + e.getMessage() + "); routers load it when it commits");
    }
    return token;
  }

  /**
   * The statement that applies a staged assignment at {@code expectedVersion}, with a {@code %s} where
   * its commit adds the notification: one round trip, the version row its compare-and-set.
   */
  static String assignmentSql(long expectedVersion, Map<Integer, String> sorted) {
    StringBuilder buckets = new StringBuilder("'{");
    StringBuilder shards = new StringBuilder("'{");
    sorted.forEach((bucket, shard) -> {
      buckets.append(buckets.length() > 2 ? "," : "").append(bucket);
      shards.append(shards.length() > 2 ? "," : "").append('"').append(shard.replace("\\", "\\\\")
          .replace("\"", "\\\"").replace("'", "''")).append('"');
    });
    // the version row is the compare-and-set: no row when the map moved on, and then nothing else changes
    return "WITH v AS (UPDATE shardwise.map_version SET version = version + 1 WHERE version = " + expectedVersion
        + " RETURNING version), b AS (UPDATE shardwise.bucket b SET shard_id = u.shard_id, read_shard_id = NULL, "
        + "copy_shard_id = CASE WHEN b.copy_shard_id = u.shard_id AND b.shard_id <> u.shard_id THEN b.shard_id "
        + "ELSE b.copy_shard_id END FROM unnest(" + buckets + "}'::int[], " + shards + "}'::text[]) AS u(bucket, "
        + "shard_id), v WHERE b.bucket = u.bucket RETURNING 1) SELECT v.version, (SELECT count(*) FROM b)"
        + "%s FROM v";
  }

  /** Rolls back the prepared transaction {@code preparedName} if it exists; gone meanwhile is no error. */
  static void rollbackPrepared(Connection c, String preparedName) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_prepared_xacts WHERE gid = ? AND database = "
        + "current_database()")) {
      ps.setString(1, preparedName);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return;
        }
      }
    }
    try (Statement s = c.createStatement()) {
      s.execute("ROLLBACK PREPARED '" + preparedName.replace("'", "''") + "'");
    } catch (SQLException e) {
      if (!"42704".equals(e.getSQLState())) {   // gone meanwhile: committed or rolled back by another
        throw e;
      }
    }
  }

  /** Sorted buckets as ranges: {@code 0-340,512}. */
  private static String ranges(java.util.List<Integer> sorted) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < sorted.size(); ) {
      int from = sorted.get(i);
      int j = i;
      while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
        j++;
      }
      out.append(out.length() > 0 ? "," : "").append(from);
      if (j > i) {
        out.append('-').append(sorted.get(j));
      }
      i = j + 1;
    }
    return out.toString();
  }

  /** A change announced as staged: its token, and the map it makes of the map it was staged on. */
  record StagedMap(String token, ShardMap map) {}

  /**
   * The map a staged change announced by {@code payload} makes of {@code base}: the same as its
   * commit makes of the stored map at {@code base}'s version (see {@link #assigned}); null when the
   * payload is malformed or the change was staged on another version.
   */
  static StagedMap parseStaged(String payload, ShardMap base) {
    String[] parts = payload.substring(STAGED_PREFIX.length()).trim().split(" ");
    try {
      if (parts.length != 3 || Long.parseLong(parts[0]) != base.version() + 1) {
        return null;
      }
      Map<Integer, String> owners = new TreeMap<>();
      for (String assignment : parts[2].split(";")) {
        int eq = assignment.lastIndexOf('=');
        String shard = assignment.substring(0, eq);
        for (String range : assignment.substring(eq + 1).split(",")) {
          int dash = range.indexOf('-');
          int from = Integer.parseInt(dash < 0 ? range : range.substring(0, dash));
          int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1));
          for (int b = from; b <= to; b++) {
            owners.put(b, shard);
          }
        }
      }
      return new StagedMap(parts[1], assigned(base, owners));
    } catch (RuntimeException malformed) {   // not a payload this version writes, or buckets/shards not in base
      LOG.log(System.Logger.Level.WARNING, "Ignoring an announced staged shard map change this router cannot"
          + " read (" + malformed + "): its commit is loaded from the control database as any change is, so"
          + " routing stays right, but writes refused at that flip wait for the load; check that the mover"
          + " and this application run the same Shardwise version. Payload: " + payload);
      return null;
    }
  }

  /**
   * {@code base} one version later with {@code owners} applied as {@link StagedAssignment}'s
   * statement applies them: each bucket's new owner, its reads no longer switched, and its copy
   * holder, when that is the new owner, turned into the old owner (a write switch leaves the
   * source's copy behind).
   *
   * @throws IllegalArgumentException if a bucket or shard is not in {@code base}
   */
  static ShardMap assigned(ShardMap base, Map<Integer, String> owners) {
    String[] newOwners = base.bucketOwnersCopy();
    String[] readers = base.readOwnersCopy();
    String[] copies = new String[newOwners.length];
    for (int b = 0; b < copies.length; b++) {
      copies[b] = base.copyHolderOf(b);
    }
    owners.forEach((bucket, shard) -> {
      String before = newOwners[bucket];
      if (shard.equals(copies[bucket]) && !before.equals(shard)) {
        copies[bucket] = before;
      }
      newOwners[bucket] = shard;
      readers[bucket] = null;
    });
    return new ShardMap(base.version() + 1, List.copyOf(base.shards().values()), newOwners, readers, copies);
  }

  private static void notify(Connection c, String payload) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_notify(?, ?)")) {
      ps.setString(1, ControlDatabase.CHANNEL);
      ps.setString(2, payload);
      ps.execute();
    }
  }
}
