package io.shardwise.spring.boot.autoconfigure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** {@code shardwise.ids.default} binds (a Java field cannot be named default) and reaches Hibernate's settings. */
class IdsPropertyTest {

  @Test
  void theDefaultIdStrategyBindsAndIsPassedOn() {
    ShardwiseProperties bound = new Binder(new MapConfigurationPropertySource(Map.of("shardwise.ids.default", "snowflake")))
        .bind("shardwise", ShardwiseProperties.class).get();
    assertEquals("snowflake", bound.getIds().getDefault());
    assertEquals("snowflake", bound.toHibernateProperties().get("shardwise.ids.default"));
    assertFalse(new ShardwiseProperties().toHibernateProperties().containsKey("shardwise.ids.default"),
        "left unset, the runtime's default (none) applies");
  }

  @Test
  void keptIdsBindAndArePassedOn() {
    ShardwiseProperties bound = new Binder(new MapConfigurationPropertySource(Map.of("shardwise.ids.generated", "cluster")))
        .bind("shardwise", ShardwiseProperties.class).get();
    assertEquals("cluster", bound.toHibernateProperties().get("shardwise.ids.generated"));
    assertFalse(new ShardwiseProperties().toHibernateProperties().containsKey("shardwise.ids.generated"),
        "left unset, the runtime's default (per_shard) applies");
  }
}
