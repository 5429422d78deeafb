package io.shardwise.hibernate.routing.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.ShardKeyException;
import io.shardwise.hibernate.routing.ShardDescriptor;
import io.shardwise.hibernate.routing.ShardMap;
import io.shardwise.hibernate.routing.ShardMapSource;
import io.shardwise.hibernate.routing.ShardingStrategies;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The router's start-up order and its two key paths; no database needed. */
class RouterTest {
  private static final ShardMap ONE_SHARD = ShardMap.evenlyAssigned(1,
      List.of(ShardDescriptor.of("s0", "jdbc:postgresql://db0/app")), 64);
  private static final ShardMap TWO_SHARDS = ONE_SHARD.withShardAdded(ShardDescriptor.of("s1", "jdbc:postgresql://db1/app"));

  /**
   * A source whose map changes exactly between the router's two start-up calls, whichever order
   * they come in: the second of {@code current()} / {@code addListener()} first publishes version 2
   * (to the listeners registered so far, as a real source would), then does its own work.
   */
  private static final class ChangesBetweenTheTwoCalls implements ShardMapSource {
    private final List<Consumer<ShardMap>> listeners = new CopyOnWriteArrayList<>();
    private volatile ShardMap current = ONE_SHARD;
    private int calls;

    private void changeOnSecondCall() {
      if (++calls == 2) {
        current = TWO_SHARDS;
        listeners.forEach(l -> l.accept(TWO_SHARDS));
      }
    }

    @Override
    public ShardMap current() {
      changeOnSecondCall();
      return current;
    }

    @Override
    public void addListener(Consumer<ShardMap> listener) {
      changeOnSecondCall();
      listeners.add(listener);
    }

    @Override
    public void close() {}
  }

  @Test
  void aMapPublishedBetweenListenerRegistrationAndTheFirstReadIsNotLost() {
    Router router = Router.following(new ChangesBetweenTheTwoCalls(),
        map -> ShardingStrategies.fromProperties(Map.of(), map), "unit");
    assertEquals(2, router.map().version(), "the router must route with the map published during its start-up");
    assertEquals(2, router.map().shards().size());
  }

  @Test
  void anOlderSnapshotNeverReplacesANewerOne() {
    List<Consumer<ShardMap>> listeners = new CopyOnWriteArrayList<>();
    ShardMapSource source = new ShardMapSource() {
      @Override
      public ShardMap current() {
        return TWO_SHARDS;
      }

      @Override
      public void addListener(Consumer<ShardMap> listener) {
        listeners.add(listener);
      }

      @Override
      public void close() {}
    };
    Router router = Router.following(source, map -> ShardingStrategies.fromProperties(Map.of(), map), "unit");
    listeners.forEach(l -> l.accept(ONE_SHARD));
    assertEquals(2, router.map().version());
  }

  @Test
  void theLongPathRoutesLikeTheBoxedKey() {
    Router router = Router.following(new ChangesBetweenTheTwoCalls(),
        map -> ShardingStrategies.fromProperties(Map.of(), map), "unit");
    for (long key = -500; key <= 500; key++) {
      assertEquals(router.shardFor((Object) key), router.shardFor(key), "key " + key);
      assertEquals(router.shardFor((Object) (int) key), router.shardFor(key), "int key " + key);
    }
  }

  @Test
  void aNullKeyIsRefusedWithTheFix() {
    Router router = Router.following(new ChangesBetweenTheTwoCalls(),
        map -> ShardingStrategies.fromProperties(Map.of(), map), "unit");
    ShardKeyException e = assertThrows(ShardKeyException.class, () -> router.shardFor((Object) null));
    assertTrue(e.getMessage().contains("@ShardKey value set"), e.getMessage());
  }
}
