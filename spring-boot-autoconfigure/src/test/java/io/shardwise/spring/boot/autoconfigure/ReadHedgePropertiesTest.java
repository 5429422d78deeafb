package io.shardwise.spring.boot.autoconfigure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** {@code shardwise.read.hedge.*} bind and reach the runtime under the runtime's own keys. */
class ReadHedgePropertiesTest {

  @Test
  void theHedgeSettingsBindAndArePassedOn() {
    ShardwiseProperties bound = new Binder(new MapConfigurationPropertySource(Map.of(
        "shardwise.read.hedge.enabled", "true", "shardwise.read.hedge.percentile", "90",
        "shardwise.read.hedge.multiplier", "1.5", "shardwise.read.hedge.floor-ms", "5",
        "shardwise.read.hedge.ceiling-ms", "250")))
        .bind("shardwise", ShardwiseProperties.class).get();
    Map<String, String> runtime = bound.toHibernateProperties();
    assertEquals("true", runtime.get("shardwise.read.hedge.enabled"));
    assertEquals("90", runtime.get("shardwise.read.hedge.percentile"));
    assertEquals("1.5", runtime.get("shardwise.read.hedge.multiplier"));
    assertEquals("5", runtime.get("shardwise.read.hedge.floor_ms"));
    assertEquals("250", runtime.get("shardwise.read.hedge.ceiling_ms"));
    assertFalse(new ShardwiseProperties().toHibernateProperties().containsKey("shardwise.read.hedge.enabled"),
        "left unset, the runtime's default (off) applies");
  }
}
