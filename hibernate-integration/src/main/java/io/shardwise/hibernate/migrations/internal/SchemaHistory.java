package io.shardwise.hibernate.migrations.internal;

import io.shardwise.hibernate.internal.ShardwiseConfig;
import io.shardwise.hibernate.internal.jdbc.DriverConnections;
import io.shardwise.hibernate.internal.jdbc.JdbcUrls;
import io.shardwise.hibernate.migrations.ShardSchemaVersion;
import io.shardwise.hibernate.routing.ShardDescriptor;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Reads a shard's schema version from Flyway's history table with plain JDBC, so that the version
 * gate works without Flyway on the class path. The table's columns used here ({@code version},
 * {@code description}, {@code script}, {@code success}) have kept their names since Flyway 3.
 */
final class SchemaHistory {
  private SchemaHistory() {}

  /** Orders Flyway versions numerically part by part ({@code 1.10 > 1.9}); trailing zero parts do not count. */
  static final Comparator<String> VERSION_ORDER = (a, b) -> {
    List<BigInteger> x = parts(a);
    List<BigInteger> y = parts(b);
    for (int i = 0; i < Math.max(x.size(), y.size()); i++) {
      int c = (i < x.size() ? x.get(i) : BigInteger.ZERO).compareTo(i < y.size() ? y.get(i) : BigInteger.ZERO);
      if (c != 0) {
        return c;
      }
    }
    return 0;
  };

  /** Opens a connection of its own to the shard's primary (outside the pools) and reads its version. */
  static ShardSchemaVersion read(ShardwiseConfig config, ShardDescriptor shard, int pendingScripts)
      throws SQLException {
    ShardwiseConfig.NodeTimeouts timeouts = config.timeouts(shard.id(), false);
    try (Connection c = DriverConnections.open(shard.primaryUrl(), config.user(), config.password(),
        "shardwise-schema-version", DriverConnections.timeouts(
            ShardwiseConfig.NodeTimeouts.driverSeconds(timeouts.connectTimeoutMs()),
            ShardwiseConfig.NodeTimeouts.driverSeconds(timeouts.socketTimeoutMs())))) {
      return read(c, shard, config.migrations().table(), pendingScripts);
    }
  }

  static ShardSchemaVersion read(Connection c, ShardDescriptor shard, String table, int pendingScripts)
      throws SQLException {
    String server = JdbcUrls.hostPort(shard.primaryUrl());
    try (PreparedStatement exists = c.prepareStatement("SELECT to_regclass(quote_ident(?)) IS NOT NULL")) {
      exists.setString(1, table);
      try (ResultSet rs = exists.executeQuery()) {
        rs.next();
        if (!rs.getBoolean(1)) {
          return new ShardSchemaVersion(shard.id(), server, null, null, null, pendingScripts);
        }
      }
    }
    String latest = null;
    String description = null;
    String failed = null;
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT version, description, script, success FROM \"" + table
            + "\" WHERE version IS NOT NULL ORDER BY installed_rank")) {
      while (rs.next()) {
        String version = rs.getString(1);
        if (!rs.getBoolean(4)) {
          failed = rs.getString(3);
        } else if (latest == null || VERSION_ORDER.compare(version, latest) > 0) {
          latest = version;
          description = rs.getString(2);
        }
      }
    }
    return new ShardSchemaVersion(shard.id(), server, latest, description, failed, pendingScripts);
  }

  /** Whether two shards are at the same version, a failed script included. */
  static boolean sameVersion(ShardSchemaVersion a, ShardSchemaVersion b) {
    boolean sameNumber = a.version() == null ? b.version() == null
        : b.version() != null && VERSION_ORDER.compare(a.version(), b.version()) == 0;
    return sameNumber && java.util.Objects.equals(a.failedScript(), b.failedScript());
  }

  private static List<BigInteger> parts(String version) {
    return Arrays.stream(version.split("[._]")).map(p -> p.isEmpty() ? BigInteger.ZERO : new BigInteger(p)).toList();
  }
}
