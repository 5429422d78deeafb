package io.shardwise.spring.boot.autoconfigure;

import io.shardwise.hibernate.ShardedSessions;
import io.shardwise.hibernate.ShardingConfigurationException;
import io.shardwise.hibernate.resharding.ReshardTable;
import io.shardwise.hibernate.spi.ShardwiseConnectionProvider;
import io.shardwise.spring.boot.autoconfigure.SeedStatements.Statement;
import java.io.IOException;
import java.nio.charset.Charset;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.hibernate.engine.spi.SessionFactoryImplementor;
import org.hibernate.persister.collection.AbstractCollectionPersister;
import org.hibernate.persister.entity.AbstractEntityPersister;
import org.springframework.core.io.Resource;

/**
 * Runs SQL init scripts on a sharded database: schema scripts on every shard as they are, data
 * scripts routed row by row ({@link SeedRouting}) after every statement of them has been routed.
 * Each shard runs its statements in one transaction; a failure rolls that shard back and names the
 * statement's file and line (shards before it in the order keep theirs).
 */
final class SeedScripts {
  private final ShardedSessions shards;
  private final ShardwiseConnectionProvider connections;
  private final String setting;

  SeedScripts(ShardedSessions shards, ShardwiseConnectionProvider connections, String setting) {
    this.shards = shards;
    this.connections = connections;
    this.setting = setting;
  }

  void apply(List<Resource> schemaScripts, List<Resource> dataScripts, String separator, Charset encoding) {
    List<Statement> schema = read(schemaScripts, separator, encoding);
    List<Statement> data = read(dataScripts, separator, encoding);
    Map<String, List<Statement>> byShard = new LinkedHashMap<>();
    shards.shardIds().forEach(id -> byShard.put(id, new ArrayList<>(schema)));
    if (!data.isEmpty()) {
      new SeedRouting(shards, routableTables(), this::columnsOf, setting).route(data)
          .forEach((shard, statements) -> byShard.get(shard).addAll(statements));
    }
    byShard.forEach(this::run);
  }

  private List<Statement> read(List<Resource> scripts, String separator, Charset encoding) {
    List<Statement> statements = new ArrayList<>();
    for (Resource script : scripts) {
      try {
        statements.addAll(SeedStatements.split(script.getContentAsString(encoding), script.getFilename(), separator));
      } catch (IOException e) {
        throw new ShardingConfigurationException(setting + ": cannot read " + script + ": " + e.getMessage(), e);
      }
    }
    return statements;
  }

  /** The entity tables, and the collection tables of reference entities (their rows go where their owners' go). */
  private Map<String, ReshardTable> routableTables() {
    Map<String, ReshardTable> tables = new HashMap<>();
    for (ReshardTable table : shards.entityTables()) {
      tables.put(SeedRouting.normalized(table.name()), table);
    }
    shards.sessionFactory().unwrap(SessionFactoryImplementor.class).getMappingMetamodel()
        .forEachCollectionDescriptor(collection -> {
          if (collection instanceof AbstractCollectionPersister persister
              && persister.getOwnerEntityPersister() instanceof AbstractEntityPersister owner) {
            ReshardTable ownerTable = tables.get(SeedRouting.normalized(unquoted(owner.getTableName())));
            String name = SeedRouting.normalized(unquoted(persister.getTableName()));
            if (ownerTable != null && ownerTable.isReference() && !tables.containsKey(name)) {
              tables.put(name, ReshardTable.reference(name));
            }
          }
        });
    return tables;
  }

  private static String unquoted(String name) {
    return name.startsWith("\"") ? name.replace("\"", "") : name.toLowerCase(java.util.Locale.ROOT);
  }

  private List<String> columnsOf(String table) {
    String shard = shards.shardIds().iterator().next();
    Connection c = connections.getConnection(shard);
    try (PreparedStatement columns = c.prepareStatement("select column_name from information_schema.columns where"
        + " table_schema = coalesce(?, current_schema()) and table_name = ? order by ordinal_position")) {
      int dot = table.indexOf('.');
      columns.setString(1, dot < 0 ? null : table.substring(0, dot));
      columns.setString(2, table.substring(dot + 1));
      List<String> names = new ArrayList<>();
      try (ResultSet rs = columns.executeQuery()) {
        while (rs.next()) {
          names.add(rs.getString(1));
        }
      }
      return names;
    } catch (SQLException e) {
      throw new ShardingConfigurationException(setting + ": cannot read the columns of " + table + " on shard '" + shard
          + "': " + e.getMessage(), e);
    } finally {
      release(shard, c);
    }
  }

  private void run(String shard, List<Statement> statements) {
    if (statements.isEmpty()) {
      return;
    }
    Connection c = connections.getConnection(shard);
    Statement current = null;
    try {
      c.setAutoCommit(false);
      try (java.sql.Statement jdbc = c.createStatement()) {
        for (Statement statement : statements) {
          current = statement;
          jdbc.execute(statement.sql());
        }
      }
      c.commit();
    } catch (SQLException | RuntimeException e) {
      try {
        c.rollback();
      } catch (SQLException rollback) {
        e.addSuppressed(rollback);
      }
      throw new ShardingConfigurationException(setting + ": " + (current == null ? "" : current.where() + " ")
          + "failed on shard '" + shard + "' and was rolled back there (shards before it in " + shards.shardIds()
          + " kept theirs): " + e.getMessage(), e);
    } finally {
      try {
        c.setAutoCommit(true);
      } catch (SQLException ignored) {
        // the connection goes back to the pool, which resets it
      }
      release(shard, c);
    }
  }

  private void release(String shard, Connection c) {
    try {
      connections.releaseConnection(shard, c);
    } catch (SQLException e) {
      throw new ShardingConfigurationException(setting + ": cannot release a connection of shard '" + shard + "'", e);
    }
  }
}
