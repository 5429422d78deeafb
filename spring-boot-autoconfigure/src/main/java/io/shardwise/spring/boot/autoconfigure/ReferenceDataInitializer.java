package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.spi.ShardwiseConnectionProvider;
import io.shardwise.hibernate.ShardingConfigurationException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;
import org.springframework.jdbc.datasource.init.ScriptUtils;

/**
 * The {@code spring.sql.init} counterpart for sharded development databases: runs the scripts of
 * {@code shardwise.sql.init.locations} on every shard's primary at startup, after the schema
 * action, each shard in one transaction. Meant for reference data and sample rows in development
 * and tests; in production, {@code @ReferenceTable} rows change through
 * {@code shards.referenceTables()}, atomically on every shard.
 */
final class ReferenceDataInitializer implements InitializingBean {
  private final ShardedSessions shards;
  private final ShardwiseConnectionProvider connections;
  private final ResourceLoader resources;
  private final List<String> locations;

  ReferenceDataInitializer(ShardedSessions shards, ShardwiseConnectionProvider connections, ResourceLoader resources,
      List<String> locations) {
    this.shards = shards;
    this.connections = connections;
    this.resources = resources;
    this.locations = List.copyOf(locations);
  }

  @Override
  public void afterPropertiesSet() throws SQLException {
    for (String location : locations) {
      Resource script = resources.getResource(location);
      if (!script.exists()) {
        throw new ShardingConfigurationException("shardwise.sql.init.locations names " + location
            + ", which does not exist");
      }
    }
    for (String shardId : shards.shardIds()) {
      Connection c = connections.getConnection(shardId);
      try {
        c.setAutoCommit(false);
        for (String location : locations) {
          ScriptUtils.executeSqlScript(c, resources.getResource(location));
        }
        c.commit();
      } catch (RuntimeException | SQLException e) {
        c.rollback();
        throw new ShardingConfigurationException("shardwise.sql.init: a script failed on shard '" + shardId
            + "' and was rolled back there (shards before it in " + shards.shardIds() + " kept theirs): "
            + e.getMessage(), e);
      } finally {
        c.setAutoCommit(true);
        connections.releaseConnection(shardId, c);
      }
    }
  }
}
