package io.shardwise.hibernate.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.routing.RangeStrategy.Range;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RangeStrategyTest {
  private final RangeStrategy strategy = new RangeStrategy(List.of(
      Range.of(1000, 2000, "b"), Range.of(0, 1000, "a"), Range.from(2000, "c")));

  @Test
  void routesByHalfOpenRanges() {
    assertEquals("a", strategy.shardFor(0));
    assertEquals("a", strategy.shardFor(999));
    assertEquals("b", strategy.shardFor(1000));
    assertEquals("b", strategy.shardFor(1999L));
    assertEquals("c", strategy.shardFor(2000));
    assertEquals("c", strategy.shardFor(Long.MAX_VALUE));
    assertEquals("b", strategy.shardFor((Object) (short) 1500));
    assertEquals(List.of("a", "b", "c"), List.copyOf(strategy.shards()));
  }

  @Test
  void keyOutsideEveryRangeIsNamed() {
    IllegalArgumentException below = assertThrows(IllegalArgumentException.class, () -> strategy.shardFor(-1));
    assertEquals("Key -1 is outside every range (0 to +inf); add a range that covers it", below.getMessage());
    RangeStrategy bounded = new RangeStrategy(List.of(Range.of(0, 10, "a")));
    IllegalArgumentException above = assertThrows(IllegalArgumentException.class, () -> bounded.shardFor(10));
    assertEquals("Key 10 is outside every range (0 to 10 exclusive); add a range that covers it", above.getMessage());
  }

  @Test
  void gapsAndOverlapsAreRejected() {
    IllegalArgumentException gap = assertThrows(IllegalArgumentException.class,
        () -> new RangeStrategy(List.of(Range.of(0, 10, "a"), Range.of(20, 30, "b"))));
    assertEquals("Ranges [0, 10) -> a and [20, 30) -> b leave the keys [10, 20) unassigned; extend one of them so"
        + " that 10 is the lower bound of the next range", gap.getMessage());
    IllegalArgumentException overlap = assertThrows(IllegalArgumentException.class,
        () -> new RangeStrategy(List.of(Range.of(0, 10, "a"), Range.of(5, 30, "b"))));
    assertTrue(overlap.getMessage().startsWith("Ranges [0, 10) -> a and [5, 30) -> b overlap"), overlap.getMessage());
    IllegalArgumentException afterUnbounded = assertThrows(IllegalArgumentException.class,
        () -> new RangeStrategy(List.of(Range.from(0, "a"), Range.of(5, 30, "b"))));
    assertTrue(afterUnbounded.getMessage().contains("overlap"), afterUnbounded.getMessage());
    IllegalArgumentException empty = assertThrows(IllegalArgumentException.class, () -> Range.of(5, 5, "a"));
    assertTrue(empty.getMessage().contains("[5, 5) of shard 'a' is empty"), empty.getMessage());
  }

  @Test
  void nonIntegralKeysAreRejectedWithTheAlternative() {
    IllegalArgumentException text = assertThrows(IllegalArgumentException.class, () -> strategy.shardFor("acme"));
    assertTrue(text.getMessage().contains("String 'acme'") && text.getMessage().contains("bucket or directory"),
        text.getMessage());
    assertThrows(IllegalArgumentException.class, () -> strategy.shardFor(UUID.randomUUID()));
    IllegalArgumentException none = assertThrows(IllegalArgumentException.class, () -> strategy.shardFor((Object) null));
    assertTrue(none.getMessage().contains("null"), none.getMessage());
  }
}
