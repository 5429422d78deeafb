package io.shardwise.hibernate.scatter;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.shardwise.hibernate.scatter.internal.ScatterExecutor;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The fan-out itself, without a database: the part the calling thread runs, and what it waits for. */
class ScatterExecutorTest {

  @Test
  void aPartTheCallerRanUpToTheDeadlineDoesNotLoseTheAnswersThatCameMeanwhile() throws Exception {
    try (ScatterExecutor executor = new ScatterExecutor("test", 2, 8)) {
      CountDownLatch othersAnswered = new CountDownLatch(1);
      Thread caller = Thread.currentThread();
      Thread[] ranOn = new Thread[1];
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1000);
      Map<String, Callable<String>> tasks = new LinkedHashMap<>();
      tasks.put("s0", () -> {
        ranOn[0] = Thread.currentThread();
        // the caller's own part: it returns only once the other part answered and the deadline has passed
        assertTrue(othersAnswered.await(10, TimeUnit.SECONDS), "the other part ran");
        while (System.nanoTime() - deadline < 0) {
          java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        return "late but mine";
      });
      tasks.put("s1", () -> {
        othersAnswered.countDown();
        return "on time";
      });

      ScatterExecutor.Outcome<String> outcome = executor.run(tasks, "s0", deadline, true);

      assertSame(caller, ranOn[0], "s0's part ran on the calling thread");
      assertEquals(Map.of("s0", "late but mine", "s1", "on time"), outcome.results(),
          "s1 answered while the caller ran s0: it is kept, not reported late; " + outcome.missing());
      assertEquals(Map.of(), outcome.missing());
    }
  }

  /** An interrupted caller stops waiting, and the shards it did not wait for say so, not "deadline". */
  @Test
  void aCallerInterruptedWhileWaitingReportsTheMissingShardsAsInterrupted() throws Exception {
    try (ScatterExecutor executor = new ScatterExecutor("test", 2, 8)) {
      CountDownLatch started = new CountDownLatch(1);
      CountDownLatch release = new CountDownLatch(1);
      Thread caller = Thread.currentThread();
      Thread interrupter = new Thread(() -> {
        try {
          if (started.await(10, TimeUnit.SECONDS)) {
            caller.interrupt();
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      interrupter.start();
      Map<String, Callable<String>> tasks = new LinkedHashMap<>();
      tasks.put("s1", () -> {
        started.countDown();
        release.await(20, TimeUnit.SECONDS);
        return "too late";
      });
      ScatterExecutor.Outcome<String> outcome;
      try {
        outcome = executor.run(tasks, null, System.nanoTime() + TimeUnit.SECONDS.toNanos(30), false);
      } finally {
        release.countDown();
      }
      // read (and clear) the flag before joining: a join with the flag still set throws at once
      boolean interruptKept = Thread.interrupted();
      interrupter.join();
      assertTrue(interruptKept, "the caller's interrupt is kept for it to see");
      assertEquals(Map.of(), outcome.results());
      assertTrue(outcome.missing().get("s1").startsWith("the calling thread was interrupted after"),
          outcome.missing().toString());
    }
  }

  /**
   * The runtime's executor: on JDK 21+ every part on a virtual thread of its own, so that 64 parts
   * parked at once hold no platform thread each; on 17 a platform pool. Either way the parts past
   * threads × 17 in flight are refused at once, not queued.
   */
  @Test
  void theRuntimesExecutorRunsPartsOnVirtualThreadsWhereTheJdkHasThemAndRefusesPastItsBound() throws Exception {
    boolean virtualJdk = Runtime.version().feature() >= 21;
    try (ScatterExecutor executor = ScatterExecutor.forUnit("test", 1)) {
      assertEquals(virtualJdk, executor.runsOnVirtualThreads());
      CountDownLatch release = new CountDownLatch(1);
      CountDownLatch parked = new CountDownLatch(17);
      java.util.Set<Boolean> virtual = java.util.concurrent.ConcurrentHashMap.newKeySet();
      Map<String, Callable<String>> tasks = new LinkedHashMap<>();
      for (int i = 0; i < 17; i++) {
        String shard = "s" + i;
        tasks.put(shard, () -> {
          virtual.add(isVirtual(Thread.currentThread()));
          parked.countDown();
          assertTrue(release.await(10, TimeUnit.SECONDS));
          return shard;
        });
      }
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      java.util.concurrent.ExecutorService caller = java.util.concurrent.Executors.newSingleThreadExecutor();
      java.util.concurrent.Future<ScatterExecutor.Outcome<String>> first =
          caller.submit(() -> executor.run(tasks, deadline, true));
      caller.shutdown();
      // on virtual threads all 17 parts run at once; on the platform pool of 1, one runs and 16 wait
      await().atMost(java.time.Duration.ofSeconds(10)).until(() -> parked.getCount() <= (virtualJdk ? 0 : 16));
      assertEquals(java.util.Set.of(virtualJdk), virtual);
      await().atMost(java.time.Duration.ofSeconds(10)).until(() -> {
        try {
          executor.run(Map.of("one more", () -> "x"), System.nanoTime() + TimeUnit.SECONDS.toNanos(1), true);
          return false;
        } catch (io.shardwise.hibernate.scatter.ScatterGatherException saturated) {
          return saturated.getMessage().contains("is saturated");
        }
      });
      release.countDown();
      assertEquals(17, first.get(10, TimeUnit.SECONDS).results().size());
      assertEquals(Map.of("again", "y"), executor.run(Map.<String, Callable<String>>of("again", () -> "y"),
          System.nanoTime() + TimeUnit.SECONDS.toNanos(10), true).results(), "permits come back as parts end");
    }
  }

  private static boolean isVirtual(Thread t) {
    try {
      return (Boolean) Thread.class.getMethod("isVirtual").invoke(t);
    } catch (ReflectiveOperationException e) {
      return false; // JDK 17: no virtual threads
    }
  }
}
