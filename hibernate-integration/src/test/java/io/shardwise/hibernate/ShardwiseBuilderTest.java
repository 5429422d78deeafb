package io.shardwise.hibernate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** The fluent builder refuses contradictions instead of letting the last call win; repeats are fine. */
class ShardwiseBuilderTest {

  @Test
  void aPropertySetTwiceToDifferentValuesIsRefused() {
    Shardwise.Builder b = Shardwise.configure().property(ShardwiseSettings.POOL_SIZE, "10");
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> b.property(ShardwiseSettings.POOL_SIZE, "20"));
    assertEquals("shardwise.pool.size was already set to 10; refusing to change it to 20. Set each property once.",
        e.getMessage());
  }

  @Test
  void aMeterRegistryIsTheRegistryObjectAndIsGivenOnce() {
    IllegalArgumentException notARegistry = assertThrows(IllegalArgumentException.class,
        () -> Shardwise.configure().meterRegistry("prometheusMeterRegistry"));
    assertEquals("meterRegistry(...) takes a io.micrometer.core.instrument.MeterRegistry; was a java.lang.String",
        notARegistry.getMessage());
    io.micrometer.core.instrument.MeterRegistry registry = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
    Shardwise.Builder b = Shardwise.configure().meterRegistry(registry);
    assertSame(b, b.meterRegistry(registry), "the same registry again is no contradiction");
    IllegalStateException another = assertThrows(IllegalStateException.class,
        () -> b.meterRegistry(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()));
    assertEquals("shardwise.metrics.registry was already set to another registry"
        + " (io.micrometer.core.instrument.simple.SimpleMeterRegistry); give meterRegistry(...) once. To publish to"
        + " several, pass a Micrometer CompositeMeterRegistry.", another.getMessage());
  }

  @Test
  void theSameValueTwiceIsNoContradiction() {
    Shardwise.Builder b = Shardwise.configure().schema("update").credentials("app", "pw");
    assertSame(b, b.property(ShardwiseSettings.SCHEMA_ACTION, "update").credentials("app", "pw")
        .shard("s0", "jdbc:postgresql://db0/shop").property(ShardwiseSettings.SHARD_PREFIX + "s0.url",
            "jdbc:postgresql://db0/shop"));
  }

  @Test
  void namedSettersAreCheckedLikeProperties() {
    Shardwise.Builder b = Shardwise.configure().schema("create").shard("s0", "jdbc:postgresql://db0/shop")
        .controlDatabase("jdbc:postgresql://ctl/shardwise", false);
    assertEquals("shardwise.schema.action was already set to create; refusing to change it to validate. Set each"
        + " property once.", assertThrows(IllegalStateException.class, () -> b.schema("validate")).getMessage());
    assertThrows(IllegalStateException.class, () -> b.controlDatabase("jdbc:postgresql://ctl/shardwise", true));
    assertThrows(IllegalStateException.class,
        () -> b.property(ShardwiseSettings.SHARD_PREFIX + "s0.url", "jdbc:postgresql://elsewhere/shop"));
    assertThrows(IllegalStateException.class, () -> b.property(ShardwiseSettings.SHARDS, "s0,s1"));
    assertThrows(IllegalStateException.class,
        () -> b.property("hibernate.multi_tenant_connection_provider", "com.example.OtherProvider"));
  }

  @Test
  void shardsListedByPropertyAndByShardContradictEachOther() {
    Shardwise.Builder b = Shardwise.configure().property(ShardwiseSettings.SHARDS, "s9");
    IllegalStateException e = assertThrows(IllegalStateException.class,
        () -> b.shard("s0", "jdbc:postgresql://db0/shop"));
    assertEquals("shardwise.shards was already set to s9 with property(...); list the shards either with shard(...)"
        + " or with that property, not both", e.getMessage());
  }

  @Test
  void secretsAndUrlCredentialsStayOutOfTheMessage() {
    Shardwise.Builder b = Shardwise.configure().credentials("app", "hunter2")
        .controlDatabase("jdbc:postgresql://app:hunter2@ctl/shardwise", false);
    String password = assertThrows(IllegalStateException.class, () -> b.credentials("app", "other")).getMessage();
    assertEquals("shardwise.password was already set to (hidden); refusing to change it to (hidden). Set each"
        + " property once.", password);
    String url = assertThrows(IllegalStateException.class,
        () -> b.property(ShardwiseSettings.CONTROL_URL, "jdbc:postgresql://ctl2/shardwise")).getMessage();
    assertEquals("shardwise.control.url was already set to jdbc:postgresql://app:***@ctl/shardwise; refusing to"
        + " change it to jdbc:postgresql://ctl2/shardwise. Set each property once.", url);
    String cleared = assertThrows(IllegalStateException.class, () -> b.credentials("app", null)).getMessage();
    assertFalse(cleared.contains("hunter2"), cleared);
  }
}
