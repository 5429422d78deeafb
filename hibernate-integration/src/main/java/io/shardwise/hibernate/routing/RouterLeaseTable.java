package io.shardwise.hibernate.routing;

import io.shardwise.hibernate.routing.ControlDatabase.RouterLease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The table of router leases in the control database ({@code shardwise.router}): the SQL that
 * registers a router and its heartbeat, removes it, and lists the routers. {@link ControlDatabase}
 * (the public entry) and {@link ControlDatabaseShardMapSource} (a router's own connection) call it on
 * their connections; the shard map's own tables are {@link ShardMapTables}'.
 */
final class RouterLeaseTable {
  private RouterLeaseTable() {}

  /** Every registered router by id; empty when the table does not exist. */
  static List<RouterLease> list(Connection c) throws SQLException {
    List<RouterLease> routers = new ArrayList<>();
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
        "SELECT to_regclass('shardwise.router') IS NULL")) {
      if (rs.next() && rs.getBoolean(1)) {
        return routers;
      }
    }
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT id, host, pid, unit, version,"
        + " lease_ms, (extract(epoch FROM clock_timestamp() - last_seen) * 1000)::bigint FROM shardwise.router"
        + " ORDER BY id")) {
      while (rs.next()) {
        routers.add(new RouterLease(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4),
            rs.getLong(5), rs.getLong(6), rs.getLong(7)));
      }
    }
    return routers;
  }

  /** Removes the routers whose lease ran out more than {@code olderThanMs} ago. */
  static int removeExpired(Connection c, long olderThanMs) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM shardwise.router WHERE last_seen"
        + " < clock_timestamp() - (lease_ms + ?) * interval '1 millisecond'")) {
      ps.setLong(1, olderThanMs);
      return ps.executeUpdate();
    }
  }

  /**
   * Records that router {@code r} routes with map {@code version} and is alive now (its heartbeat);
   * the lease counts from this statement's start on the database's clock.
   */
  static void heartbeat(Connection c, RouterLease r, long version) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("""
        INSERT INTO shardwise.router (id, host, pid, unit, version, lease_ms, last_seen)
        VALUES (?, ?, ?, ?, ?, ?, statement_timestamp())
        ON CONFLICT (id) DO UPDATE SET version = excluded.version, last_seen = excluded.last_seen""")) {
      ps.setString(1, r.id());
      ps.setString(2, r.host());
      ps.setLong(3, r.pid());
      ps.setString(4, r.unit());
      ps.setLong(5, version);
      ps.setLong(6, r.leaseMs());
      ps.executeUpdate();
    }
  }

  /** Removes router {@code id}'s row (it closed). */
  static void unregister(Connection c, String id) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("DELETE FROM shardwise.router WHERE id = ?")) {
      ps.setString(1, id);
      ps.executeUpdate();
    }
  }
}
