package io.shardwise.hibernate.routing;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class StaticShardMapSourceTest {

  @Test
  void servesTheConfiguredMapBeforeAndAfterClose() {
    ShardMap map = ShardMap.evenlyAssigned(4, List.of(ShardDescriptor.of("s1", "jdbc:postgresql://db1/app")), 8);
    StaticShardMapSource source = new StaticShardMapSource(map);
    source.addListener(m -> {
      throw new AssertionError("a static map never changes, so listeners are never called");
    });
    assertSame(map, source.current());
    source.close();
    assertSame(map, source.current());
  }

  @Test
  void refusesAMissingMap() {
    NullPointerException e = assertThrows(NullPointerException.class, () -> new StaticShardMapSource(null));
    assertTrue(e.getMessage().contains("needs a shard map"), e.getMessage());
  }
}
