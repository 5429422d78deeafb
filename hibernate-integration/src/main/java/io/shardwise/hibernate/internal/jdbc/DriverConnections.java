package io.shardwise.hibernate.internal.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;

/**
 * Connections opened straight from the PostgreSQL driver, outside every pool: for the replica
 * monitor, the worker lease and the control database, which must neither wait on nor exhaust a
 * shard's pool. The one place Shardwise calls the driver itself.
 */
public final class DriverConnections {
  private static final org.postgresql.Driver DRIVER = new org.postgresql.Driver();

  private DriverConnections() {}

  /**
   * Opens a connection as {@code user} (and {@code password} when not null), tagged with
   * {@code applicationName} in {@code pg_stat_activity}; {@code options} (timeouts) are passed to
   * the driver as they are.
   *
   * @throws SQLException when the server refuses or does not answer, or when {@code jdbcUrl} is not
   *     a PostgreSQL URL (the message shows it with its credentials masked)
   */
  public static Connection open(String jdbcUrl, String user, String password, String applicationName,
      Properties options) throws SQLException {
    Properties properties = new Properties();
    if (options != null) {
      properties.putAll(options);
    }
    if (user != null) {
      properties.setProperty("user", user);
    }
    if (password != null) {
      properties.setProperty("password", password);
    }
    properties.setProperty("ApplicationName", applicationName);
    Connection c = DRIVER.connect(jdbcUrl, properties);
    if (c == null) {
      throw new SQLException("The PostgreSQL driver does not accept the URL " + JdbcUrls.redact(jdbcUrl)
          + "; use jdbc:postgresql://host:port/database");
    }
    return c;
  }

  /** The driver's timeouts as options for {@link #open}: connect and socket timeouts in whole seconds. */
  public static Properties timeouts(long connectSeconds, long socketSeconds) {
    Properties options = new Properties();
    options.setProperty("connectTimeout", Long.toString(connectSeconds));
    options.setProperty("socketTimeout", Long.toString(socketSeconds));
    return options;
  }
}
