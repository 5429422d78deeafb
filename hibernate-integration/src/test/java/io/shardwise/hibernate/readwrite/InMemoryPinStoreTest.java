package io.shardwise.hibernate.readwrite;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The pin store's sweep and a concurrent pin of the scope it is emptying, forced into the losing order. */
class InMemoryPinStoreTest {

  @Test
  void aPinWrittenWhileTheSweepDropsItsEmptiedScopeIsKept() throws Exception {
    AtomicLong now = new AtomicLong(1_000);
    CountDownLatch sweepIsDroppingScope = new CountDownLatch(1);
    CountDownLatch sweepMayGoOn = new CountDownLatch(1);
    InMemoryPinStore store = new InMemoryPinStore(now::get, (scopeId, empty) -> {
      if (scopeId.equals("user:1") && empty) {
        // the sweep has found the scope empty and is about to drop its map: hold it here
        sweepIsDroppingScope.countDown();
        awaitQuietly(sweepMayGoOn);
      }
    });
    store.pin("user:1", "s0", new Pin(5, 0, 0, 1_500));
    now.set(2_000); // that pin has expired: the sweep will empty the scope

    Thread sweeper = new Thread(store::sweep, "sweeper");
    sweeper.start();
    assertTrue(sweepIsDroppingScope.await(10, TimeUnit.SECONDS));

    Pin fresh = new Pin(9, 0, 0, 60_000);
    Thread writer = new Thread(() -> store.pin("user:1", "s0", fresh), "writer");
    writer.start();
    // the write either waits for the sweep's step on its scope or has completed: let the sweep go on
    await().atMost(Duration.ofSeconds(10)).until(() -> EnumSet.of(Thread.State.BLOCKED, Thread.State.WAITING,
        Thread.State.TERMINATED).contains(writer.getState()));
    sweepMayGoOn.countDown();
    sweeper.join(10_000);
    writer.join(10_000);

    assertEquals(fresh, store.get("user:1", "s0"), "the pin written during the sweep survives it");
    assertEquals(1, store.pins("user:1").size());
  }

  @Test
  void theSweepDropsExpiredPinsAndEmptyScopesOnly() {
    AtomicLong now = new AtomicLong(1_000);
    InMemoryPinStore store = new InMemoryPinStore(now::get, (scopeId, empty) -> { });
    store.pin("user:1", "s0", new Pin(5, 0, 0, 1_500));
    store.pin("user:2", "s0", new Pin(6, 0, 0, 1_500));
    store.pin("user:2", "s1", new Pin(7, 0, 0, 9_000));
    now.set(2_000);
    store.sweep();
    assertTrue(store.pins("user:1").isEmpty());
    assertNull(store.get("user:2", "s0"));
    assertEquals(7, store.get("user:2", "s1").minLsn());
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("the test never released the sweep");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
