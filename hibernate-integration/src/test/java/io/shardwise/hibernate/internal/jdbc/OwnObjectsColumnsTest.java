package io.shardwise.hibernate.internal.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.shardwise.hibernate.ShardwiseDdl;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The columns the catalog check expects, read from Shardwise's own DDL. */
class OwnObjectsColumnsTest {

  @Test
  void createTableColumnsAndLaterAddedColumnsAreExpectedButNotConstraints() {
    Map<String, Set<String>> columns = OwnObjects.columns(ShardwiseDdl.Feature.SHARD_MAP.statements());
    assertEquals(List.of("id", "primary_url", "replica_urls", "weight", "state", "ordinal"),
        List.copyOf(columns.get("shardwise.shard")));
    assertEquals(List.of("bucket", "shard_id", "read_shard_id", "copy_shard_id"),
        List.copyOf(columns.get("shardwise.bucket")));
    assertEquals(List.of("singleton", "version"), List.copyOf(columns.get("shardwise.map_version")));
    assertEquals(List.of("saga_id", "step", "name", "state", "attempts", "last_error", "updated_at"),
        List.copyOf(OwnObjects.columns(ShardwiseDdl.Feature.TRANSACTION_LOG.statements()).get("shardwise.saga_step")));
  }

  @Test
  void quotedGlobalIndexTablesAreReadUnquoted() {
    String table = ShardwiseDdl.globalIndexTable("com.example.Customer", "Customer", "email", false);
    assertEquals(List.of("value", "shard_key", "entity_id", "created_at"),
        List.copyOf(OwnObjects.columns(ShardwiseDdl.globalIndexStatements(table)).get(table)));
  }

  @Test
  void everyFeatureTableHasExpectedColumns() {
    for (ShardwiseDdl.Feature feature : ShardwiseDdl.Feature.values()) {
      Map<String, Set<String>> columns = OwnObjects.columns(feature.statements());
      for (String table : feature.tables()) {
        assertFalse(columns.getOrDefault(table, Set.of()).isEmpty(), feature + ": " + table);
      }
    }
  }
}
