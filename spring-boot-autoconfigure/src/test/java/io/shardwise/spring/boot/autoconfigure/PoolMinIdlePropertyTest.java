package io.shardwise.spring.boot.autoconfigure;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** {@code shardwise.pool.min-idle} binds and reaches the runtime as {@code shardwise.pool.min_idle}. */
class PoolMinIdlePropertyTest {

  @Test
  void theMinimumOfIdleConnectionsBindsAndIsPassedOn() {
    ShardwiseProperties bound = new Binder(new MapConfigurationPropertySource(Map.of("shardwise.pool.min-idle", "3")))
        .bind("shardwise", ShardwiseProperties.class).get();
    assertEquals(3, bound.getPool().getMinIdle());
    assertEquals("3", bound.toHibernateProperties().get("shardwise.pool.min_idle"));
    assertEquals("0", new ShardwiseProperties().toHibernateProperties().get("shardwise.pool.min_idle"),
        "left unset, pools open their connections on first use");
  }
}
