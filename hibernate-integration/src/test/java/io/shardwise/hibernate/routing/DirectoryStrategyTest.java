package io.shardwise.hibernate.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class DirectoryStrategyTest {
  private static final UUID TENANT = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");

  @Test
  void integralKeysAreOneKeyWhateverTheirType() {
    DirectoryStrategy strategy = new DirectoryStrategy(Map.of(7, "a", "acme", "b", TENANT, "c"));
    assertEquals("a", strategy.shardFor(7L));
    assertEquals("a", strategy.shardFor((Object) 7L));
    assertEquals("a", strategy.shardFor((Object) (short) 7));
    assertEquals("a", strategy.shardFor((Object) 7));
    assertEquals("b", strategy.shardFor("acme"));
    assertEquals("c", strategy.shardFor(TENANT));
  }

  @Test
  void manyLongKeysAreFound() {
    Map<Long, String> directory = new HashMap<>();
    for (long k = -500; k < 500; k++) {
      directory.put(k * 1_000_003, "s" + Math.floorMod(k, 3));
    }
    DirectoryStrategy strategy = new DirectoryStrategy(directory);
    for (long k = -500; k < 500; k++) {
      assertEquals("s" + Math.floorMod(k, 3), strategy.shardFor(k * 1_000_003), "key " + k * 1_000_003);
    }
    assertEquals(List.of("s0", "s1", "s2"), strategy.shards().stream().sorted().toList());
  }

  @Test
  void unlistedKeysGoToTheFallback() {
    BucketStrategy fallback = new BucketStrategy(ShardMap.evenlyAssigned(1, BucketStrategyPropertyTest.shards(2, 1), 64));
    DirectoryStrategy strategy = new DirectoryStrategy(Map.of(42L, "s1"), fallback);
    assertEquals("s1", strategy.shardFor(42));
    for (long k = 0; k < 100; k++) {
      if (k != 42) {
        assertEquals(fallback.shardFor(k), strategy.shardFor(k), "key " + k);
      }
    }
    assertEquals(fallback.shardFor("zeta"), strategy.shardFor("zeta"));
  }

  @Test
  void unlistedKeyWithoutFallbackIsAnError() {
    DirectoryStrategy strategy = new DirectoryStrategy(Map.of(42L, "s1"));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> strategy.shardFor(43));
    assertEquals("Key '43' is not in the shard directory and there is no fallback strategy; add the key to the"
        + " directory or configure a fallback", e.getMessage());
    IllegalArgumentException text = assertThrows(IllegalArgumentException.class, () -> strategy.shardFor("nobody"));
    assertTrue(text.getMessage().startsWith("Key 'nobody' is not in the shard directory"), text.getMessage());
  }

  @Test
  void conflictingEntriesForOneValueAreRejected() {
    Map<Object, String> directory = new LinkedHashMap<>();
    directory.put(7, "a");
    directory.put(7L, "b");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new DirectoryStrategy(directory));
    assertEquals("Directory key 7 is mapped to both 'a' and 'b' (integral keys compare by value); keep one entry",
        e.getMessage());
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> new DirectoryStrategy(Map.of(1.5, "a")));
    assertTrue(bad.getMessage().contains("java.lang.Double"), bad.getMessage());
  }
}
