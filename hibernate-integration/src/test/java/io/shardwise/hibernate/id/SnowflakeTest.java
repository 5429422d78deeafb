package io.shardwise.hibernate.id;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SnowflakeTest {
  private static final SnowflakeLayout LAYOUT = SnowflakeLayout.DEFAULT;
  /** Some millisecond well after the default epoch. */
  private static final long T = LAYOUT.epochMillis() + 1_000_000_000L;

  @Test
  void tenMillionIdsFromEightThreadsAreUniqueAndIncreasingPerThread() throws Exception {
    // 18 sequence bits: the CAS, not the layout's 4096 ids/ms, is the limit, so threads race hardest
    SnowflakeLayout wide = SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 4, 18);
    assertUniqueAndIncreasing(wide, 13, 8, 1_250_000);
  }

  @Test
  void defaultLayoutStaysUniqueWhileThreadsUseUpMilliseconds() throws Exception {
    // at the default layout's 4096 ids/ms the threads keep carrying into the next millisecond and waiting
    assertUniqueAndIncreasing(LAYOUT, 513, 8, 150_000);
  }

  private static void assertUniqueAndIncreasing(SnowflakeLayout layout, int workerId, int threads, int perThread)
      throws Exception {
    Snowflake ids = Snowflake.builder(layout).workerId(workerId).build();
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<long[]>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        results.add(pool.submit(() -> {
          long[] mine = new long[perThread];
          start.await();
          for (int i = 0; i < perThread; i++) {
            mine[i] = ids.nextId();
          }
          return mine;
        }));
      }
      long[] all = new long[threads * perThread];
      for (int t = 0; t < threads; t++) {
        long[] mine = results.get(t).get(2, TimeUnit.MINUTES);
        for (int i = 1; i < mine.length; i++) {
          if (mine[i] <= mine[i - 1]) {
            throw new AssertionError("thread " + t + ": id #" + i + " = " + mine[i] + " is not above #" + (i - 1)
                + " = " + mine[i - 1]);
          }
        }
        System.arraycopy(mine, 0, all, t * perThread, perThread);
      }
      Arrays.sort(all);
      for (int i = 1; i < all.length; i++) {
        if (all[i] == all[i - 1]) {
          throw new AssertionError("duplicate id " + all[i] + " = " + layout.decode(all[i]));
        }
      }
      assertTrue(all[0] > 0, "ids are positive");
      assertEquals(workerId, layout.decode(all[0]).worker());
      assertEquals(workerId, layout.decode(all[all.length - 1]).worker());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void nextIdMatchingDrawsInOrderUntilAnIdIsAcceptedAndNeverReissuesTheBlock() {
    ManualClock clock = new ManualClock(T);
    Snowflake ids = Snowflake.builder(LAYOUT).workerId(7).clock(clock).build();
    long before = ids.nextId();
    int[] draws = new int[1];
    long matched = ids.nextIdMatching(id -> {
      draws[0]++;
      return id % 32 == 5;
    }, 1000);
    assertEquals(5, matched % 32);
    assertTrue(matched > before);
    assertTrue(draws[0] >= 1 && draws[0] <= 32, "consecutive ids hit every residue within 32 draws: " + draws[0]);
    long after = ids.nextId();
    assertTrue(after > matched, "ids after the match continue past it");
    int[] counted = new int[1];
    NoMatchingIdException none = assertThrows(NoMatchingIdException.class, () -> ids.nextIdMatching(id -> {
      counted[0]++;
      return false;
    }, 100));
    assertEquals(100, counted[0], "exactly maxDraws ids are drawn");
    assertTrue(none.getMessage().startsWith("none of 100 ids drawn from Snowflake[worker=7"), none.getMessage());
    assertTrue(ids.nextId() > after);
  }

  @Test
  void matchedAndPlainIdsFromFourThreadsAreUnique() throws Exception {
    Snowflake ids = Snowflake.builder(LAYOUT).workerId(8).build();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<long[]>> parts = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int thread = t;
        parts.add(pool.submit(() -> {
          long[] out = new long[20_000];
          for (int i = 0; i < out.length; i++) {
            out[i] = (i + thread) % 2 == 0 ? ids.nextId() : ids.nextIdMatching(id -> Snowflake.mix(id) % 7 == 0, 10_000);
          }
          return out;
        }));
      }
      long[] all = new long[0];
      for (Future<long[]> part : parts) {
        long[] p = part.get(60, TimeUnit.SECONDS);
        for (int i = 1; i < p.length; i++) {
          assertTrue(p[i] > p[i - 1], "increasing within a thread");
        }
        long[] merged = Arrays.copyOf(all, all.length + p.length);
        System.arraycopy(p, 0, merged, all.length, p.length);
        all = merged;
      }
      assertEquals(all.length, Arrays.stream(all).distinct().count(), "no id twice");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void idsDecodeToClockWorkerAndSequence() {
    ManualClock clock = new ManualClock(T);
    Snowflake ids = Snowflake.builder(LAYOUT).workerId(7).clock(clock).build();
    SnowflakeLayout.Decoded first = LAYOUT.decode(ids.nextId());
    SnowflakeLayout.Decoded second = LAYOUT.decode(ids.nextId());

    long start = ids.startSequence(T - LAYOUT.epochMillis());
    assertEquals(Instant.ofEpochMilli(T), first.timestamp());
    assertEquals(7, first.worker());
    assertEquals(start, first.sequence());
    assertEquals(start == 4095 ? 0 : start + 1, second.sequence());
  }

  @Test
  void exhaustedMillisecondCarriesIntoTheNextThenWaitsForTheClock() throws Exception {
    ManualClock clock = new ManualClock(T);
    Snowflake ids = Snowflake.builder(LAYOUT).workerId(1).clock(clock).build();
    int start = (int) ids.startSequence(T - LAYOUT.epochMillis());
    int beforeWaiting = (4096 - start) + 4096; // the rest of T, then all of T+1 borrowed ahead of the clock

    long previous = 0;
    int inFirst = 0;
    int inSecond = 0;
    for (int i = 0; i < beforeWaiting; i++) {
      long id = ids.nextId();
      assertTrue(id > previous);
      previous = id;
      long millis = LAYOUT.decode(id).timestamp().toEpochMilli();
      if (millis == T) {
        inFirst++;
      } else if (millis == T + 1) {
        inSecond++;
      } else {
        throw new AssertionError("id #" + i + " is in millisecond " + millis + ", expected " + T + " or " + (T + 1));
      }
    }
    assertEquals(4096 - start, inFirst);
    assertEquals(4096, inSecond);

    CompletableFuture<Long> blocked = CompletableFuture.supplyAsync(ids::nextId);
    long readsBefore = clock.reads();
    await().atMost(Duration.ofSeconds(10)).until(() -> clock.reads() > readsBefore + 1000);
    assertFalse(blocked.isDone(), "with both milliseconds used up, the generator must wait for the clock");

    clock.advance(1);
    long id = blocked.get(10, TimeUnit.SECONDS);
    assertTrue(id > previous);
    assertEquals(Instant.ofEpochMilli(T + 2), LAYOUT.decode(id).timestamp());
    assertEquals(0, LAYOUT.decode(id).sequence());
  }

  @Test
  void smallClockStepBackKeepsIdsIncreasingWithoutDuplicates() {
    ManualClock clock = new ManualClock(T);
    Snowflake ids = Snowflake.builder(LAYOUT).workerId(2).clock(clock).maxClockStepBack(Duration.ofMillis(10)).build();
    long last = ids.nextId();
    int room = 4095 - LAYOUT.decode(last).sequence();
    clock.set(T - 10);
    for (int i = 0; i < Math.min(100, room); i++) {
      long id = ids.nextId();
      assertTrue(id > last, "after a tolerated step back ids still increase");
      assertTrue(LAYOUT.decode(id).timestamp().toEpochMilli() >= T, "they continue from the last id's millisecond");
      last = id;
    }
    clock.set(T + 5);
    assertTrue(ids.nextId() > last, "a clock back within the catch-up window keeps counting");
    clock.set(T + 5 + Snowflake.CATCH_UP_MILLIS);
    long id = ids.nextId();
    assertTrue(id > last);
    assertEquals(Instant.ofEpochMilli(T + 5 + Snowflake.CATCH_UP_MILLIS), LAYOUT.decode(id).timestamp(),
        "further behind, the generator jumps to the clock");
  }

  @Test
  void toleratedStepBackWaitsWhenTheBorrowedMillisecondsAreUsedUp() throws Exception {
    ManualClock clock = new ManualClock(T);
    Snowflake ids = Snowflake.builder(LAYOUT).workerId(3).clock(clock).maxClockStepBack(Duration.ofMillis(10)).build();
    ids.nextId();
    clock.set(T - 5);
    long last = 0;
    int issued = 0;
    // the rest of millisecond T is still free, then the generator must wait for the clock
    int start = (int) ids.startSequence(T - LAYOUT.epochMillis());
    for (int i = 0; i < 4096 - start - 1; i++) {
      last = ids.nextId();
      issued++;
    }
    assertEquals(Instant.ofEpochMilli(T), LAYOUT.decode(last).timestamp());

    CompletableFuture<Long> blocked = CompletableFuture.supplyAsync(ids::nextId);
    long readsBefore = clock.reads();
    await().atMost(Duration.ofSeconds(10)).until(() -> clock.reads() > readsBefore + 1000);
    assertFalse(blocked.isDone(), "after " + issued + " ids the step back must be waited out, not skipped");
    clock.set(T);
    long id = blocked.get(10, TimeUnit.SECONDS);
    assertTrue(id > last);
    assertEquals(Instant.ofEpochMilli(T + 1), LAYOUT.decode(id).timestamp());
  }

  @Test
  void stepBackBeyondToleranceThrowsAndRecoversWhenTheClockCatchesUp() {
    ManualClock clock = new ManualClock(T);
    Snowflake ids = Snowflake.builder(LAYOUT).workerId(4).clock(clock).maxClockStepBack(Duration.ofMillis(10)).build();
    long last = ids.nextId();
    clock.set(T - 50);

    ClockMovedBackwardsException e = assertThrows(ClockMovedBackwardsException.class, ids::nextId);
    assertEquals(50, e.behindMillis());
    assertTrue(e.getMessage().contains("50 ms behind"), e.getMessage());
    assertTrue(e.getMessage().contains("worker 4"), e.getMessage());

    clock.set(T + 1);
    assertTrue(ids.nextId() > last);
  }

  @Test
  void shortStallIsMadeUpByCountingOnInsteadOfSkippingMilliseconds() {
    ManualClock clock = new ManualClock(T);
    Snowflake ids = Snowflake.builder(LAYOUT).workerId(5).clock(clock).build();
    long first = ids.nextId();
    clock.advance(Snowflake.CATCH_UP_MILLIS); // the thread was descheduled for 10 ms
    long next = ids.nextId();
    assertEquals(first + 1, next, "within the catch-up window the sequence continues");
    assertEquals(LAYOUT.decode(first).timestamp(), LAYOUT.decode(next).timestamp());
  }

  @Test
  void lowTrafficSpreadsTheLowBits() {
    ManualClock clock = new ManualClock(T);
    Snowflake ids = Snowflake.builder(LAYOUT).workerId(0).clock(clock).build();
    int n = 16;
    int samples = 16_000;
    int[] counts = new int[n];
    int[] evenOdd = new int[2];
    for (int i = 0; i < samples; i++) {
      long id = ids.nextId();
      counts[(int) (id % n)]++;
      evenOdd[(int) (id % 2)]++;
      clock.advance(Snowflake.CATCH_UP_MILLIS + 1); // low traffic: every id starts a fresh millisecond
    }
    int expected = samples / n;
    for (int r = 0; r < n; r++) {
      assertTrue(counts[r] > expected * 0.8 && counts[r] < expected * 1.2,
          "id % " + n + " == " + r + " occurred " + counts[r] + " times, expected about " + expected
              + ": " + Arrays.toString(counts));
    }
    assertTrue(Math.abs(evenOdd[0] - evenOdd[1]) < samples / 10, "even/odd " + Arrays.toString(evenOdd));
  }

  @Test
  void customLayoutPutsPartsWhereItSays() {
    SnowflakeLayout layout = SnowflakeLayout.of(Instant.parse("2020-01-01T00:00:00Z"), 5, 8);
    ManualClock clock = new ManualClock(Instant.parse("2025-06-01T12:00:00Z").toEpochMilli());
    Snowflake ids = Snowflake.builder(layout).workerId(31).clock(clock).build();
    long id = ids.nextId();
    SnowflakeLayout.Decoded parts = layout.decode(id);
    assertEquals(Instant.parse("2025-06-01T12:00:00Z"), parts.timestamp());
    assertEquals(31, parts.worker());
    assertEquals(50, layout.timestampBits());
    assertEquals(layout.firstIdAt(parts.timestamp()) | (31L << 8) | parts.sequence(), id);
  }

  @Test
  void badConfigurationIsRejectedWithTheValueAndTheFix() {
    IllegalArgumentException worker = assertThrows(IllegalArgumentException.class,
        () -> Snowflake.builder(LAYOUT).workerId(1024));
    assertTrue(worker.getMessage().contains("1024") && worker.getMessage().contains("0..1023"), worker.getMessage());

    IllegalArgumentException bits = assertThrows(IllegalArgumentException.class,
        () -> SnowflakeLayout.of(SnowflakeLayout.DEFAULT_EPOCH, 16, 20));
    assertTrue(bits.getMessage().contains("27 timestamp bits"), bits.getMessage());

    IllegalStateException none = assertThrows(IllegalStateException.class, () -> Snowflake.builder(LAYOUT).build());
    assertTrue(none.getMessage().contains("workerId(int)"), none.getMessage());

    IllegalStateException future = assertThrows(IllegalStateException.class,
        () -> Snowflake.builder(LAYOUT).workerId(1).clock(new ManualClock(LAYOUT.epochMillis() - 1)).build());
    assertTrue(future.getMessage().contains("before the epoch"), future.getMessage());

    IllegalArgumentException negative = assertThrows(IllegalArgumentException.class, () -> LAYOUT.decode(-5));
    assertTrue(negative.getMessage().contains("-5"), negative.getMessage());
  }
}
