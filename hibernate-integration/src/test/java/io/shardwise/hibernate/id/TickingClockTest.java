package io.shardwise.hibernate.id;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The ticking clock follows the system clock, and ids made with it stay unique and increasing. */
class TickingClockTest {

  @Test
  void followsTheSystemClock() {
    Clock ticking = Clock.ticking();
    long start = ticking.millis();
    await().atMost(Duration.ofSeconds(5)).until(() -> ticking.millis() >= start + 50);
    long gap = System.currentTimeMillis() - ticking.millis();
    assertTrue(gap >= 0, "never ahead of the system clock: " + gap);
  }

  @Test
  void idsWithTheTickingClockAreUniqueAndIncreasingPerThread() throws Exception {
    Snowflake ids = Snowflake.builder(SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 4, 18))
        .workerId(3).clock(Clock.ticking()).build();
    int threads = 4;
    int perThread = 250_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<long[]>> results = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      results.add(pool.submit(() -> {
        long[] mine = new long[perThread];
        for (int i = 0; i < perThread; i++) {
          mine[i] = ids.nextId();
        }
        return mine;
      }));
    }
    long[] all = new long[threads * perThread];
    int n = 0;
    for (Future<long[]> f : results) {
      long[] mine = f.get();
      for (int i = 1; i < mine.length; i++) {
        assertTrue(mine[i] > mine[i - 1], "increasing within a thread");
      }
      System.arraycopy(mine, 0, all, n, mine.length);
      n += mine.length;
    }
    pool.shutdown();
    Arrays.sort(all);
    for (int i = 1; i < all.length; i++) {
      assertTrue(all[i] != all[i - 1], "id " + all[i] + " generated twice");
    }
  }

  @Test
  void aLeasedWorkerRefusesTheTickingClock() {
    SnowflakeGenerator.SettingSource settings = name -> switch (name) {
      case SnowflakeGenerator.LEASE_URL -> "jdbc:postgresql://127.0.0.1:1/none";
      case SnowflakeGenerator.CLOCK -> "ticking";
      default -> null;
    };
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> SnowflakeGenerator.generatorFor(
        SnowflakeLayout.DEFAULT, Duration.ofMillis(10), settings, "Order.id"));
    assertTrue(e.getMessage().contains("ticking cannot be used with"), e.getMessage());
    assertEquals(SnowflakeGenerator.CLOCK, "shardwise.snowflake.clock");
  }
}
