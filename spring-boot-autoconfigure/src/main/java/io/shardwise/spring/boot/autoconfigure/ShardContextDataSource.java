package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.hibernate.NoShardSelectedException;
import io.shardwise.hibernate.ShardContext;
import io.shardwise.hibernate.spi.ShardwiseConnectionProvider;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The {@link DataSource} bean of a Shardwise application: a connection to the primary of the
 * current {@link ShardContext}'s shard. Inside a JPA transaction, Spring's JDBC helpers
 * ({@code JdbcTemplate}, {@code DataSourceUtils}) get the transaction's own connection instead;
 * outside one, this hands out a connection of the shard in context, and refuses without one
 * rather than pick a shard: a {@link SQLException} (the JDBC contract for "cannot connect") whose
 * cause is a {@link NoShardSelectedException}.
 */
public final class ShardContextDataSource implements DataSource {
  private final ShardwiseConnectionProvider connectionProvider;

  ShardContextDataSource(ShardwiseConnectionProvider connectionProvider) {
    this.connectionProvider = connectionProvider;
  }

  @Override
  public Connection getConnection() throws SQLException {
    String shardId = ShardContext.current();
    if (shardId == null) {
      String message = "[NoShardSelected] A JDBC connection was asked of Shardwise's DataSource outside a shard"
          + " context: open one first (@WithShard on the method, the web interceptor's shardwise.web.key-header,"
          + " or shards.contextForKey(key)), or run the JDBC code inside a @Transactional method, which uses the"
          + " transaction's connection.";
      throw new SQLException(message, "08001", new NoShardSelectedException(message));
    }
    return connectionProvider.getConnection(shardId);
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    throw new SQLFeatureNotSupportedException("Shardwise's DataSource connects with shardwise.user /"
        + " shardwise.password; it does not take other credentials");
  }

  @Override
  public PrintWriter getLogWriter() {
    return null;
  }

  @Override
  public void setLogWriter(PrintWriter out) {
    // nothing is logged through DriverManager-style writers
  }

  @Override
  public void setLoginTimeout(int seconds) {
    // the shard pools have their own connection timeout (shardwise.pool.connection-timeout-ms)
  }

  @Override
  public int getLoginTimeout() {
    return 0;
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    throw new SQLFeatureNotSupportedException("Shardwise's DataSource does not log through java.util.logging");
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    if (type.isInstance(this)) {
      return type.cast(this);
    }
    throw new SQLException("Shardwise's DataSource is not a " + type.getName());
  }

  @Override
  public boolean isWrapperFor(Class<?> type) {
    return type.isInstance(this);
  }
}
