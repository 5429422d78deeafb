package io.shardwise.hibernate.routing.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardUnavailableException;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardMapSource;
import io.shardwise.hibernate.routing.ShardState;
import io.shardwise.hibernate.routing.ShardingStrategies;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The shard of each new root: a smooth weighted round robin over the ACTIVE shards that own buckets. */
class NewRootPlacementTest {

  /** A source whose map the test replaces. */
  private static final class Maps implements ShardMapSource {
    private final List<Consumer<ShardMap>> listeners = new ArrayList<>();
    private ShardMap current;

    Maps(ShardMap first) {
      current = first;
    }

    void publish(ShardMap next) {
      current = next;
      listeners.forEach(l -> l.accept(next));
    }

    @Override
    public ShardMap current() {
      return current;
    }

    @Override
    public void addListener(Consumer<ShardMap> listener) {
      listeners.add(listener);
    }

    @Override
    public void close() {}
  }

  private static ShardDescriptor shard(String id, int weight, ShardState state) {
    return new ShardDescriptor(id, "jdbc:postgresql://" + id + "/app", List.of(), weight, state);
  }

  private static NewRootPlacement placement(Maps maps) {
    return new NewRootPlacement(Router.following(maps, map -> ShardingStrategies.fromProperties(Map.of(), map), "unit"),
        "unit");
  }

  private static Map<String, Integer> picks(NewRootPlacement placement, int n, List<String> order) {
    Map<String, Integer> counts = new TreeMap<>();
    for (int i = 0; i < n; i++) {
      String shard = placement.next();
      order.add(shard);
      counts.merge(shard, 1, Integer::sum);
    }
    return counts;
  }

  @Test
  void weightsOneOneTwoGiveExactSharesInterleaved() {
    NewRootPlacement placement = placement(new Maps(ShardMap.evenlyAssigned(1,
        List.of(shard("a", 1, ShardState.ACTIVE), shard("b", 1, ShardState.ACTIVE), shard("c", 2, ShardState.ACTIVE)),
        1024)));
    List<String> order = new ArrayList<>();
    assertEquals(Map.of("a", 2500, "b", 2500, "c", 5000), picks(placement, 10_000, order));
    assertEquals(List.of("c", "a", "b", "c"), order.subList(0, 4), "the heavy shard is interleaved, not in a burst");
  }

  @Test
  void readOnlyOfflineAndBucketlessShardsNeverGetOne() {
    ShardMap map = ShardMap.evenlyAssigned(1, List.of(shard("a", 1, ShardState.ACTIVE),
        shard("b", 3, ShardState.READ_ONLY), shard("c", 1, ShardState.OFFLINE), shard("d", 2, ShardState.ACTIVE)), 1024);
    Maps maps = new Maps(map);
    NewRootPlacement placement = placement(maps);
    assertEquals(Map.of("a", 100, "d", 200), picks(placement, 300, new ArrayList<>()));

    // a new shard that owns no bucket yet (no id could route to it), and b back to ACTIVE
    List<ShardDescriptor> next = List.of(shard("a", 1, ShardState.ACTIVE), shard("b", 3, ShardState.ACTIVE),
        shard("c", 1, ShardState.OFFLINE), shard("d", 2, ShardState.ACTIVE), shard("e", 5, ShardState.ACTIVE));
    maps.publish(new ShardMap(2, next, map.bucketOwnersCopy()));
    assertEquals(Map.of("a", 100, "b", 300, "d", 200), picks(placement, 600, new ArrayList<>()),
        "the new map is followed; e owns no bucket");
  }

  @Test
  void noShardToTakeANewRootSaysWhy() {
    NewRootPlacement placement = placement(new Maps(ShardMap.evenlyAssigned(1,
        List.of(shard("a", 1, ShardState.READ_ONLY), shard("b", 1, ShardState.OFFLINE)), 1024)));
    ShardUnavailableException e = assertThrows(ShardUnavailableException.class, placement::next);
    assertTrue(e.getMessage().contains("no shard can take a new root"), e.getMessage());
  }
}
