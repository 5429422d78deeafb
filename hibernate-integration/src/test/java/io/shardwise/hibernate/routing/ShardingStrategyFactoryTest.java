package io.shardwise.hibernate.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** {@link ShardingStrategies#fromProperties}: what each configuration builds, and what each mistake says. */
class ShardingStrategyFactoryTest {
  private final ShardMap map = ShardMap.evenlyAssigned(3, BucketStrategyPropertyTest.shards(3, 1), 1024);

  @Test
  void bucketIsTheDefault() {
    assertInstanceOf(BucketStrategy.class, ShardingStrategies.fromProperties(Map.of(), map));
    assertInstanceOf(BucketStrategy.class, ShardingStrategies.fromProperties(Map.of("shardwise.strategy", " Bucket "), map));
  }

  @Test
  void ringWithVnodes() {
    ShardingStrategy s = ShardingStrategies.fromProperties(
        Map.of("shardwise.strategy", "ring", "shardwise.ring.vnodes", "100"), map);
    assertEquals(300, ((ConsistentHashRing) s).pointCount());
  }

  @Test
  void rangesPerShard() {
    ShardingStrategy s = ShardingStrategies.fromProperties(Map.of("shardwise.strategy", "range",
        "shardwise.range.s0", "..0", "shardwise.range.s1", "0..100, 200..", "shardwise.range.s2", "100..200"), map);
    assertEquals("s0", s.shardFor(Long.MIN_VALUE));
    assertEquals("s1", s.shardFor(99));
    assertEquals("s2", s.shardFor(100));
    assertEquals("s1", s.shardFor(Long.MAX_VALUE));
  }

  @Test
  void directoryWithFallbackAndTypedKeys() {
    ShardingStrategy inferred = ShardingStrategies.fromProperties(Map.of("shardwise.strategy", "directory",
        "shardwise.directory.42", "s2", "shardwise.directory.acme", "s1",
        "shardwise.directory.123e4567-e89b-12d3-a456-426614174000", "s0", "shardwise.fallback", "bucket"), map);
    assertEquals("s2", inferred.shardFor(42));
    assertEquals("s1", inferred.shardFor("acme"));
    assertEquals("s0", inferred.shardFor(UUID.fromString("123e4567-e89b-12d3-a456-426614174000")));
    assertEquals(new BucketStrategy(map).shardFor(43), inferred.shardFor(43));

    ShardingStrategy textKeys = ShardingStrategies.fromProperties(Map.of("shardwise.strategy", "directory",
        "shardwise.directory.42", "s2"), map, ShardKeyType.STRING);
    assertEquals("s2", textKeys.shardFor("42"));
  }

  @Test
  void unknownStrategy() {
    assertMessage("shardwise.strategy='hash' is not a strategy; use bucket, ring, range or directory",
        Map.of("shardwise.strategy", "hash"));
  }

  @Test
  void badVnodes() {
    assertMessage("shardwise.ring.vnodes='many' must be a whole number of virtual nodes per unit of weight from 1 to"
        + " 65536; 256 is a good default", Map.of("shardwise.strategy", "ring", "shardwise.ring.vnodes", "many"));
  }

  @Test
  void propertyOfAnotherStrategy() {
    assertMessage("shardwise.ring.vnodes does not apply to shardwise.strategy=bucket; remove it or choose the strategy"
        + " it belongs to", Map.of("shardwise.ring.vnodes", "100"));
    assertMessage("shardwise.range.s0 does not apply to shardwise.strategy=ring; remove it or choose the strategy it"
        + " belongs to", Map.of("shardwise.strategy", "ring", "shardwise.range.s0", "0.."));
  }

  @Test
  void unknownShard() {
    assertMessage("shardwise.range.s9 names shard 's9', which is not in shard map version 3; use one of [s0, s1, s2]",
        Map.of("shardwise.strategy", "range", "shardwise.range.s9", "0.."));
    assertMessage("shardwise.directory.7 names shard 'nowhere', which is not in shard map version 3; use one of"
        + " [s0, s1, s2]", Map.of("shardwise.strategy", "directory", "shardwise.directory.7", "nowhere"));
  }

  @Test
  void malformedRange() {
    assertMessage("shardwise.range.s0='0-100' is not a key range: each range is lower..upper, lower.. or ..upper"
        + " (e.g. 0..1000000, lower inclusive, upper exclusive)",
        Map.of("shardwise.strategy", "range", "shardwise.range.s0", "0-100"));
    assertMessage("shardwise.range.s0='ten..20' is not a key range: bounds are whole numbers within the long range"
        + " (e.g. 0..1000000, lower inclusive, upper exclusive)",
        Map.of("shardwise.strategy", "range", "shardwise.range.s0", "ten..20"));
    assertMessage("The shardwise.range.* properties do not tile the keys: Ranges [0, 10) -> s0 and [20, +inf) -> s1"
        + " leave the keys [10, 20) unassigned; extend one of them so that 10 is the lower bound of the next range",
        Map.of("shardwise.strategy", "range", "shardwise.range.s0", "0..10", "shardwise.range.s1", "20.."));
  }

  @Test
  void directoryMistakes() {
    assertMessage("shardwise.strategy=directory needs shardwise.directory.<key>=<shardId> properties, or"
        + " shardwise.fallback=bucket|ring for unlisted keys", Map.of("shardwise.strategy", "directory"));
    assertMessage("shardwise.fallback='hash' is not a fallback; use none, bucket or ring",
        Map.of("shardwise.strategy", "directory", "shardwise.directory.1", "s0", "shardwise.fallback", "hash"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ShardingStrategies.fromProperties(
        Map.of("shardwise.strategy", "directory", "shardwise.directory.acme", "s0"), map, ShardKeyType.LONG));
    assertEquals("shardwise.directory.acme: 'acme' is not a LONG shard key value; write the key as the entity stores"
        + " it (e.g. shardwise.directory.42=<shardId>)", e.getMessage());
  }

  private void assertMessage(String expected, Map<String, String> props) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ShardingStrategies.fromProperties(props, map));
    assertEquals(expected, e.getMessage());
  }
}
