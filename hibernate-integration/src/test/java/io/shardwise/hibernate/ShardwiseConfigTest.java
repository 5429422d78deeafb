package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.internal.ShardwiseConfig;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Configuration is validated before anything connects; every message names the unit and the property. */
class ShardwiseConfigTest {

  private static Map<String, Object> valid() {
    Map<String, Object> p = new HashMap<>();
    p.put("hibernate.persistenceUnitName", "shop");
    p.put("shardwise.shards", "a,b");
    p.put("shardwise.shard.a.url", "jdbc:postgresql://db-a/shop");
    p.put("shardwise.shard.b.url", "jdbc:postgresql://db-b/shop");
    p.put("shardwise.shard.b.weight", "3");
    return p;
  }

  @Test
  void aValidStaticMapHonoursWeights() {
    ShardwiseConfig config = ShardwiseConfig.from(valid());
    assertEquals("shop", config.unitName());
    long ownedByB = 0;
    for (int bucket = 0; bucket < config.staticMap().bucketCount(); bucket++) {
      ownedByB += config.staticMap().ownerOf(bucket).equals("b") ? 1 : 0;
    }
    assertEquals(768, ownedByB, "weight 3 of 4 owns three quarters of 1024 buckets");
  }

  @Test
  void everyProblemIsListedAtOnce() {
    Map<String, Object> p = valid();
    p.remove("shardwise.shard.b.url");
    p.put("shardwise.shard.a.url", "jdbc:mysql://db-a/shop");
    p.put("shardwise.shard.c.url", "jdbc:postgresql://db-c/shop");
    p.put("shardwise.pool.size", "zero");
    p.put("shardwise.schema.action", "recreate");
    p.put("hibernate.hbm2ddl.auto", "update");

    ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p));
    String m = e.getMessage();
    assertTrue(m.startsWith("Shardwise configuration of persistence unit 'shop' is invalid"), m);
    assertTrue(m.contains("shard 'b' has no shardwise.shard.b.url"), m);
    assertTrue(m.contains("shardwise.shard.a.url = 'jdbc:mysql://db-a/shop' is not a PostgreSQL JDBC URL"), m);
    assertTrue(m.contains("shardwise.shard.c.url names shard 'c', which shardwise.shards = 'a,b' does not list"), m);
    assertTrue(m.contains("shardwise.pool.size = 'zero' is not a whole number"), m);
    assertTrue(m.contains("shardwise.schema.action = 'recreate'"), m);
    assertTrue(m.contains("hibernate.hbm2ddl.auto = 'update' would reach only one shard"), m);
  }

  @Test
  void theTransactionLogPoolIsSizedBySettingAndValidated() {
    assertEquals(3, ShardwiseConfig.from(valid()).txLogPoolSize(), "the default");
    Map<String, Object> p = valid();
    p.put(ShardwiseSettings.TX_LOG_POOL_SIZE, "8");
    assertEquals(8, ShardwiseConfig.from(p).txLogPoolSize());
    p.put(ShardwiseSettings.TX_LOG_POOL_SIZE, "0");
    ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class, () -> ShardwiseConfig.from(p));
    assertTrue(e.getMessage().contains("shardwise.transactions.log_pool_size = 0 is outside 1..100"), e.getMessage());
  }

  @Test
  void noShardsAtAllSaysWhatToSet() {
    ShardingConfigurationException e = assertThrows(ShardingConfigurationException.class,
        () -> ShardwiseConfig.from(Map.of("hibernate.persistenceUnitName", "shop")));
    assertTrue(e.getMessage().contains("set shardwise.shards"), e.getMessage());
  }
}
